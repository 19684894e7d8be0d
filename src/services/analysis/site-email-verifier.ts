import type { EmailVerdict, SiteEmailVerifier } from '../../enrichment';

/** One address verified: the email verifier's own call (which caches its results). */
export type VerifyEmail = (email: string) => Promise<EmailVerdict>;

export interface SiteEmailVerifierOptions {
  /** Addresses verified per site at most (the first ones found: mailto links and structured data come first). */
  maxEmails?: number;
  /** Verifications at once per site. */
  concurrency?: number;
  /** Budget of one site's verifications; addresses not verified by then get no verdict. */
  budgetMs?: number;
}

export const SITE_EMAIL_VERIFIER_DEFAULTS = { maxEmails: 5, concurrency: 2, budgetMs: 30_000 } as const;

/**
 * Verifies a site's addresses for verifiedEmail/safeEmail with the service's email verifier,
 * bounded per site (count, concurrency, time) so a site listing many addresses cannot hold a crawl
 * job for long. The verifier caches each address (VERIFY_CACHE_TTL_SECONDS) and spaces probes per
 * mail domain. When outbound port 25 is closed every verdict is `unknown`: the addresses then stay
 * in `email` but are in neither verifiedEmail nor safeEmail.
 */
export class BoundedSiteEmailVerifier implements SiteEmailVerifier {
  private readonly maxEmails: number;
  private readonly concurrency: number;
  private readonly budgetMs: number;

  constructor(
    private readonly verify: VerifyEmail,
    options: SiteEmailVerifierOptions = {},
  ) {
    this.maxEmails = options.maxEmails ?? SITE_EMAIL_VERIFIER_DEFAULTS.maxEmails;
    this.concurrency = Math.max(1, options.concurrency ?? SITE_EMAIL_VERIFIER_DEFAULTS.concurrency);
    this.budgetMs = options.budgetMs ?? SITE_EMAIL_VERIFIER_DEFAULTS.budgetMs;
  }

  async verifyAll(emails: readonly string[], signal?: AbortSignal): Promise<EmailVerdict[]> {
    const queue = [...new Set(emails)].slice(0, this.maxEmails);
    const verdicts: EmailVerdict[] = [];
    const deadline = Date.now() + this.budgetMs;
    const stopped = (): boolean => signal?.aborted === true || Date.now() >= deadline;
    const worker = async (): Promise<void> => {
      for (let email = queue.shift(); email !== undefined && !stopped(); email = queue.shift()) {
        const verdict = await withDeadline(this.verify(email), deadline).catch(() => undefined);
        if (verdict && !stopped()) verdicts.push(verdict);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, queue.length) }, worker));
    return verdicts;
  }
}

function withDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
