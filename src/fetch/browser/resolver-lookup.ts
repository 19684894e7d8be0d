import { Resolver } from 'node:dns/promises';
import { systemLookup, type HostLookup } from '../private-address-guard';
import { cachedLookup } from '../lookup-cache';

/** How long DNS_SERVERS answers are reused, and for how many names (a few hundred kB at most). */
const ANSWER_TTL_MS = 30_000;
const ANSWER_NAMES = 10_000;

/**
 * Name resolution for the browser's traffic: the DNS_SERVERS of the service when set (so one
 * setting decides every DNS question the service asks), the system resolver otherwise. IPv4 and
 * IPv6 answers are both returned so the guard sees every address a name has. Answers from
 * DNS_SERVERS are reused for ANSWER_TTL_MS (c-ares keeps no cache; the system resolver's own
 * caching, if any, is left as it is).
 */
export function resolverLookup(servers: readonly string[], timeoutMs: number): HostLookup {
  if (servers.length === 0) return systemLookup;
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([...servers]);
  const ask: HostLookup = async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    return [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  };
  const cached = cachedLookup(ask, { ttlMs: ANSWER_TTL_MS, maxNames: ANSWER_NAMES });
  return async (hostname) => {
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    return cached(hostname);
  };
}
