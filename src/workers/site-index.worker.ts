import type { JobContext, JobHandler } from '../jobs';
import { payloadDomain, payloadHost } from './domain-payload';
import type { SiteAnalyzer } from '../services/analysis/site-analyzer';
import type { SiteRefreshPayload } from '../services/site-index/freshness.service';
import type { SiteIndexPayload } from '../services/subdomains/subdomain.service';

/**
 * Crawls a domain's (or a known host's) site in the background (no caller, no charge, no callback) so that the index
 * learns its technologies and every host name the site reveals. Tries https first and falls back to
 * http when https gets no answer. Idempotent: a rerun only refreshes what the index knows.
 */
export function createSiteIndexHandler(
  analyzer: SiteAnalyzer,
): JobHandler<SiteIndexPayload | SiteRefreshPayload> {
  return async (payload: SiteIndexPayload | SiteRefreshPayload, context: JobContext) => {
    // A domain to index (subdomain discovery, imports), or a known site's host to refresh (freshness).
    const domain = 'host' in payload ? payloadHost(payload) : payloadDomain(payload);
    let analysis = await analyzer.crawl(`https://${domain}/`, { signal: context.signal });
    if (!analysis.ok && analysis.errors.every((e) => e.type === 'NO_RESPONSE') && !context.signal.aborted) {
      analysis = await analyzer.crawl(`http://${domain}/`, { signal: context.signal });
    }
    if (context.signal.aborted) throw new Error('site crawl interrupted; the job will run again');
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
  };
}
