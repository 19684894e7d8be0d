import type { JobContext, JobHandler } from '../jobs';
import type { AnalysisJobPayload } from '../services/analysis.service';
import { toApplication, toErrorObject, toTechnology } from '../services/analysis-shapes';
import type { CallbackService } from '../services/callback.service';
import type { CreditService } from '../services/credit.service';
import type { Database } from '../db/database';
import type { SiteAnalyzer } from '../services/site-analyzer';

export interface AnalysisWorkerDeps {
  db: Database;
  analyzer: SiteAnalyzer;
  callbacks: CallbackService;
  credits: CreditService;
}

/**
 * Runs one accepted analysis (Live/Crawl v2 with a callback, Crawl v1, Lookup v1's indexing) and
 * schedules its callback in the body form of the endpoint that accepted it. When nothing of the
 * site could be analysed, the credits charged on acceptance are refunded in the same transaction
 * that schedules the error callback; the refund is keyed by the job, so a rerun never refunds twice
 * (the callback itself is at-least-once, like every callback).
 */
export function createAnalysisHandler(deps: AnalysisWorkerDeps): JobHandler<AnalysisJobPayload> {
  return async (job: AnalysisJobPayload, context: JobContext) => {
    const analysis = job.recursive
      ? await deps.analyzer.crawl(job.url, {
          signal: context.signal,
          sets: job.sets,
          accountId: job.accountId,
        })
      : await deps.analyzer.analyzePage(job.url, {
          signal: context.signal,
          sets: job.sets,
          accountId: job.accountId,
        });
    if (context.signal.aborted) throw new Error('analysis interrupted; the job will run again');
    const payload = callbackBody(job, analysis);
    const event = `${job.form}.result`;
    const reason = `refund: ${job.form} job ${context.jobId} failed`;
    const refunded = await deps.db.transaction(async (m) => {
      await deps.callbacks.schedule(m, { accountId: job.accountId, url: job.callbackUrl, event, payload });
      if (analysis.ok || job.charged <= 0) return null;
      return deps.credits.refundOnce(m, `job:${context.jobId}`, job.accountId, job.charged, reason);
    });
    // Subscribers (creditsChanged) hear of the refund once it is committed.
    if (refunded !== null) deps.credits.announce(job.accountId, refunded, job.charged, reason);
  };
}

function callbackBody(
  job: AnalysisJobPayload,
  analysis: Awaited<ReturnType<SiteAnalyzer['crawl']>>,
): unknown {
  switch (job.form) {
    case 'crawl-v1':
      return analysis.ok
        ? { url: job.url, applications: analysis.result.technologies.map(toApplication), status: 'success' }
        : { url: job.url, applications: [], status: 'error', errors: analysis.errors.map(toErrorObject) };
    case 'lookup-v1':
      return analysis.ok
        ? { url: job.url, applications: analysis.result.technologies.map(toApplication) }
        : { url: job.url, applications: [], errors: analysis.errors.map(toErrorObject) };
    default:
      return analysis.ok
        ? {
            url: job.url,
            technologies: analysis.result.technologies.map((t) => toTechnology(t, analysis.analysedAt)),
            ...analysis.attributes,
          }
        : { url: job.url, errors: analysis.errors.map((e) => e.message) };
  }
}
