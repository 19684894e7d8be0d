import { DeferJobError, RetryJobError, type JobContext, type JobHandler } from '../jobs';
import { payloadDomain, payloadHost } from './domain-payload';
import type { SiteAnalyzer } from '../services/analysis/site-analyzer';
import type { SiteRefreshPayload } from '../services/site-index/freshness.service';
import type { SiteIndexPayload } from '../services/subdomains/subdomain.service';

/**
 * Crawls a domain's (or a known host's) site in the background (no caller, no charge, no callback) so that the index
 * learns its technologies and every host name the site reveals. Tries https first and falls back to
 * http when https gets no answer. Idempotent: a rerun only refreshes what the index knows.
 */
/** A Retry-After of 0 still waits this long before the crawl is tried again. */
const MIN_RETRY_MS = 1_000;

export function createSiteIndexHandler(
  analyzer: SiteAnalyzer,
  /** Charges the accounts whose monitors asked for the analysis (only called when it succeeded). */
  chargeWatch?: (jobId: number, host: string, accountIds: readonly number[]) => Promise<void>,
): JobHandler<SiteIndexPayload | SiteRefreshPayload> {
  return async (payload: SiteIndexPayload | SiteRefreshPayload, context: JobContext) => {
    // A domain to index (subdomain discovery, imports), or a known site's host to refresh (freshness).
    const domain = 'host' in payload ? payloadHost(payload) : payloadDomain(payload);
    // A host that asked every worker to wait (Retry-After) is not asked now: the job waits with it,
    // without using an attempt, instead of recording a failure no request was made for.
    const blockedUntil = await analyzer.hostBlockedUntil(`https://${domain}/`);
    if (blockedUntil > 0)
      throw new DeferJobError(
        `${domain} asked for no requests until ${new Date(blockedUntil).toISOString()} (Retry-After)`,
        new Date(blockedUntil),
      );
    let analysis = await analyzer.crawl(`https://${domain}/`, { signal: context.signal });
    if (!analysis.ok && analysis.errors.every((e) => e.type === 'NO_RESPONSE') && !context.signal.aborted) {
      analysis = await analyzer.crawl(`http://${domain}/`, { signal: context.signal });
    }
    if (context.signal.aborted) throw new Error('site crawl interrupted; the job will run again');
    // Its front page answered 429/503: the crawl is tried again after the Retry-After (an attempt
    // used each time, so a host that never stops answering so is given up after JOB_MAX_ATTEMPTS).
    const busy = analysis.ok ? undefined : analysis.errors.find((e) => e.retryAfterMs !== undefined);
    if (busy)
      throw new RetryJobError(
        `${domain} answered HTTP ${busy.status}; crawled again after its Retry-After`,
        Math.max(busy.retryAfterMs ?? 0, MIN_RETRY_MS),
      );
    context.logger.info(
      {
        domain,
        ok: analysis.ok,
        pages: analysis.ok ? analysis.pages : 0,
        // Why a site could not be indexed, for an operator reading the logs of a large import.
        ...(analysis.ok
          ? {}
          : {
              errors: analysis.errors.map((e) => `${e.type} ${e.status ?? '-'}: ${e.message.slice(0, 200)}`),
            }),
      },
      'background site crawl finished',
    );
    const accounts = 'host' in payload ? (payload.monitorAccounts ?? []).filter(Number.isSafeInteger) : [];
    if (analysis.ok && accounts.length > 0 && chargeWatch) await chargeWatch(context.jobId, domain, accounts);
  };
}
