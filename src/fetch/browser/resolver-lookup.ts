import { Resolver } from 'node:dns/promises';
import { isDnsNotFound } from '../dns-resolver';
import { cachedLookup } from '../lookup-cache';
import { systemLookup, type HostLookup } from '../private-address-guard';

/** How long DNS_SERVERS answers are reused, and for how many names (a few hundred kB at most). */
const ANSWER_TTL_MS = 30_000;
const ANSWER_NAMES = 10_000;
/**
 * Each question is sent again once when unanswered: a UDP datagram lost (or a server too busy to
 * answer in time) is not the name failing. Each try waits DNS_TIMEOUT_MS.
 */
const TRIES = 2;

/**
 * Name resolution for the browser's traffic: the DNS_SERVERS of the service when set (so one
 * setting decides every DNS question the service asks), the system resolver otherwise. IPv4 and
 * IPv6 answers are both returned so the guard sees every address a name has. Answers from
 * DNS_SERVERS are reused for ANSWER_TTL_MS (c-ares keeps no cache; the system resolver's own
 * caching, if any, is left as it is). A name the server says does not exist, or has no address,
 * resolves to no addresses; a question left unanswered (or refused) is an error, which is not
 * reused: the next connection asks again.
 */
export function resolverLookup(servers: readonly string[], timeoutMs: number): HostLookup {
  if (servers.length === 0) return systemLookup;
  const resolver = new Resolver({ timeout: timeoutMs, tries: TRIES });
  resolver.setServers([...servers]);
  const ask: HostLookup = async (hostname) => {
    const answers = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = answers.flatMap((answer) => (answer.status === 'fulfilled' ? answer.value : []));
    if (addresses.length > 0) return addresses;
    // No address: the name has none only when both families said so, not when a question went
    // unanswered (an empty answer would be reused for ANSWER_TTL_MS).
    for (const answer of answers)
      if (answer.status === 'rejected' && !isDnsNotFound(answer.reason)) throw answer.reason;
    return addresses;
  };
  const cached = cachedLookup(ask, { ttlMs: ANSWER_TTL_MS, maxNames: ANSWER_NAMES });
  return async (hostname) => {
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    return cached(hostname);
  };
}
