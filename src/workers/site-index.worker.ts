import type { JobContext, JobHandler } from '../jobs';
import { payloadDomain } from './domain-payload';
import type { SiteAnalyzer } from '../services/site-analyzer';
import type { SiteIndexPayload } from '../services/subdomain.service';

/**
 * Crawls a domain's site in the background (no caller, no charge, no callback) so that the index
 * learns its technologies and every host name the site reveals. Tries https first and falls back to
 * http when https gets no answer. Idempotent: a rerun only refreshes what the index knows.
 */
export function createSiteIndexHandler(analyzer: SiteAnalyzer): JobHandler<SiteIndexPayload> {
  return async (payload: SiteIndexPayload, context: JobContext) => {
    const domain = payloadDomain(payload);
    let analysis = await analyzer.crawl(`https://${domain}/`, { signal: context.signal });
    if (!analysis.ok && analysis.errors.every((e) => e.type === 'NO_RESPONSE') && !context.signal.aborted) {
      analysis = await analyzer.crawl(`http://${domain}/`, { signal: context.signal });
    }
    if (context.signal.aborted) throw new Error('site crawl interrupted; the job will run again');
    context.logger.info(
      { domain, ok: analysis.ok, pages: analysis.ok ? analysis.pages : 0 },
      'background site crawl finished',
    );
  };
}
