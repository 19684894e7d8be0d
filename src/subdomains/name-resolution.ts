import type { promises as dns } from 'node:dns';
import { DnsQuerySession, type DnsQueryOptions } from './dns-query-session';

/**
 * `unknown` means DNS gave no usable answer (timeout, SERVFAIL): a stored name's mark should then
 * stay as it was, so a flaky resolver does not hide names that exist.
 */
export type NameResolution = 'resolvable' | 'unresolvable' | 'unknown';

export type NameAnswers =
  { resolution: 'resolvable'; answers: string[] } | { resolution: 'unresolvable' | 'unknown' };

/**
 * What a name answers with, as comparable strings ("A 192.0.2.1", "CNAME lb.example.net").
 * Asks A, then AAAA, then CNAME, stopping at the first that answers, so the common case costs one
 * question; the resolver follows CNAME chains for A and AAAA itself.
 */
export async function lookupNameAnswers(session: DnsQuerySession, name: string): Promise<NameAnswers> {
  const questions = [
    (r: dns.Resolver) => r.resolve4(name).then((a) => a.map((ip) => `A ${ip}`)),
    (r: dns.Resolver) => r.resolve6(name).then((a) => a.map((ip) => `AAAA ${ip}`)),
    (r: dns.Resolver) =>
      r.resolveCname(name).then((targets) => targets.map((target) => `CNAME ${target.toLowerCase()}`)),
  ];
  let failed = false;
  for (const question of questions) {
    // eslint-disable-next-line no-restricted-syntax -- a DNS question, not SQL
    const answer = await session.query(question);
    if (answer.status === 'answered') return { resolution: 'resolvable', answers: answer.records };
    if (answer.status === 'failed') failed = true;
  }
  return { resolution: failed ? 'unknown' : 'unresolvable' };
}

/** Whether a stored name still resolves (A, AAAA or CNAME); unresolvable names are kept but marked. */
export async function resolveName(name: string, options: DnsQueryOptions = {}): Promise<NameResolution> {
  const session = new DnsQuerySession(options);
  try {
    return (await lookupNameAnswers(session, name)).resolution;
  } finally {
    session.close();
  }
}
