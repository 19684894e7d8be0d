import type { JobContext, JobHandler } from '../jobs';
import type { AnalysisJobPayload } from '../services/analysis/analysis.service';
import type { AcceptedAnalyses } from '../services/analysis/accepted-analyses';
import type { SiteAnalyzer } from '../services/analysis/site-analyzer';

export interface AnalysisWorkerDeps {
  analyzer: SiteAnalyzer;
  acceptedAnalyses: AcceptedAnalyses;
}

/**
 * Runs one accepted analysis (a crawl, or one page when the request said recursive=false) and
 * hands it to AcceptedAnalyses, which calls back in the accepting endpoint's form and refunds a
 * failure. An interrupted run throws: the job runs again from the start.
 */
export function createAnalysisHandler(deps: AnalysisWorkerDeps): JobHandler<AnalysisJobPayload> {
  return async (job: AnalysisJobPayload, context: JobContext) => {
    const options = { signal: context.signal, accountId: job.accountId, verifyEmails: true };
    const analysis = job.recursive
      ? await deps.analyzer.crawl(job.url, options)
      : await deps.analyzer.analyzePage(job.url, options);
    if (context.signal.aborted) throw new Error('analysis interrupted; the job will run again');
    await deps.acceptedAnalyses.finish(job, context.jobId, analysis);
  };
}
