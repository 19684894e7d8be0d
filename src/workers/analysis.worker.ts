import type { JobContext, JobHandler } from '../jobs';
import { type AnalysisJobPayload, type AnalysisService } from '../services/analysis/analysis.service';
import {
  toCrawlV1Callback,
  toLiveV2Object,
  toLookupV1Callback,
  toTechnology,
  type V1Outcome,
} from '../services/analysis/analysis.contract';
import type { CallbackService } from '../services/platform/callback.service';
import type { CreditService } from '../services/platform/credit.service';
import type { Database } from '../storage/database';
import type { LookupV2Service } from '../services/lookup/lookup-v2.service';
import { LOOKUP_V2_DEFAULTS, toLookupV2Object } from '../services/lookup/lookup.contract';
import type { Analysis, SiteAnalyzer } from '../services/analysis/site-analyzer';
import type { StoredSiteReader } from '../services/lookup/stored-site-reader';

export interface AnalysisWorkerDeps {
  db: Database;
  analyzer: SiteAnalyzer;
  callbacks: CallbackService;
  credits: CreditService;
  analysis: AnalysisService;
  lookupV2: LookupV2Service;
  storedSites: StoredSiteReader;
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
    const options = { signal: context.signal, accountId: job.accountId, verifyEmails: true };
    const analysis = job.recursive
      ? await deps.analyzer.crawl(job.url, options)
      : await deps.analyzer.analyzePage(job.url, options);
    if (context.signal.aborted) throw new Error('analysis interrupted; the job will run again');
    const payload = await callbackBody(deps, job, analysis);
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

async function callbackBody(
  deps: AnalysisWorkerDeps,
  job: AnalysisJobPayload,
  analysis: Analysis,
): Promise<unknown> {
  switch (job.form) {
    case 'crawl-v1':
      return toCrawlV1Callback(job.url, v1Outcome(analysis));
    case 'lookup-v1':
      return toLookupV1Callback(job.url, v1Outcome(analysis));
    case 'lookup-v2': {
      const site = analysis.ok ? await deps.storedSites.site(analysis.siteUrl) : null;
      if (!analysis.ok || !site)
        return { url: job.url, errors: analysis.ok ? [] : analysis.errors.map((e) => e.message) };
      const presentation = job.lookup ?? LOOKUP_V2_DEFAULTS;
      const lookup = await deps.lookupV2.present(job.url, site, 'ANALYSED', {
        ...presentation,
        // Just crawled: min_age does not hide what this job confirmed.
        window: { minAge: 0, maxAge: presentation.window.maxAge },
        sets: job.sets,
        now: new Date(),
      });
      return toLookupV2Object(lookup);
    }
    default:
      return analysis.ok
        ? toLiveV2Object({
            ...(await deps.analysis.storedFields(analysis.siteUrl, job.sets)),
            url: job.url,
            state: 'analysed',
            technologies: analysis.result.technologies.map((t) => toTechnology(t, analysis.analysedAt)),
            errors: [],
          })
        : toLiveV2Object({ url: job.url, state: 'failed', technologies: [], errors: analysis.errors });
  }
}

function v1Outcome(analysis: Analysis): V1Outcome {
  return analysis.ok
    ? { ok: true, technologies: analysis.result.technologies }
    : { ok: false, errors: analysis.errors };
}
