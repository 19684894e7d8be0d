/**
 * verifiedEmail and safeEmail come from the service's email verifier (an SMTP conversation), which
 * the pure library never calls. The enrichment step (a service) verifies the site's addresses
 * through `SiteEmailVerifier` (bounded and cached: see src/services/site-email-verifier.ts) and
 * turns the verdicts into the two lists with `emailVerificationSets`.
 */
export type EmailReachability = 'safe' | 'risky' | 'invalid' | 'unknown';

/** The part of the verifier's result the lists are decided on. */
export interface EmailVerdict {
  email: string;
  reachable: EmailReachability;
  deliverable: boolean;
  catchAll: boolean;
  disposable: boolean;
}

export interface SiteEmailVerifier {
  /**
   * Verdicts for some or all of `emails` (at most the verifier's per-site bound, within its time
   * budget); an address it had no time or turn for is simply missing from the answer.
   */
  verifyAll(emails: readonly string[], signal?: AbortSignal): Promise<EmailVerdict[]>;
}

/**
 * verifiedEmail: the server accepted the address as a recipient (deliverable), catch-all domains
 * included. safeEmail: the verifier's `safe` verdict (deliverable, not catch-all, not disposable,
 * no full or disabled inbox). An address without a verdict (not verified, port 25 closed: `unknown`)
 * is in neither list; both lists are absent when empty.
 */
export function emailVerificationSets(
  emails: readonly string[],
  verdicts: readonly EmailVerdict[],
): { verifiedEmail?: string[]; safeEmail?: string[] } {
  const byEmail = new Map(verdicts.map((verdict) => [verdict.email.toLowerCase(), verdict]));
  const verified: string[] = [];
  const safe: string[] = [];
  for (const email of emails) {
    const verdict = byEmail.get(email.toLowerCase());
    if (!verdict) continue;
    if (verdict.deliverable && verdict.reachable !== 'invalid') verified.push(email);
    if (verdict.reachable === 'safe') safe.push(email);
  }
  return {
    ...(verified.length > 0 ? { verifiedEmail: verified } : {}),
    ...(safe.length > 0 ? { safeEmail: safe } : {}),
  };
}
