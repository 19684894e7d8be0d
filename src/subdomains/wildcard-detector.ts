import { randomBytes } from 'node:crypto';
import type { DnsQuerySession } from './dns-query-session';
import { lookupNameAnswers } from './name-resolution';

/**
 * Probes random labels under the domain, which cannot exist unless the zone has a wildcard record.
 * Returns every answer the probes got (a wildcard may rotate through a pool of addresses), or null
 * when no probe answered, i.e. the zone has no wildcard.
 */
export async function detectWildcardAnswers(
  session: DnsQuerySession,
  domain: string,
  probes: number,
): Promise<ReadonlySet<string> | null> {
  const labels = Array.from({ length: probes }, () => `wildcard-probe-${randomBytes(6).toString('hex')}`);
  const results = await Promise.all(labels.map((label) => lookupNameAnswers(session, `${label}.${domain}`)));
  const answers = new Set(
    results.flatMap((result) => (result.resolution === 'resolvable' ? result.answers : [])),
  );
  return answers.size > 0 ? answers : null;
}

/** A name whose every answer is also a wildcard answer is indistinguishable from a wildcard hit. */
export function answersLikeWildcard(answers: readonly string[], wildcard: ReadonlySet<string>): boolean {
  return answers.every((answer) => wildcard.has(answer));
}
