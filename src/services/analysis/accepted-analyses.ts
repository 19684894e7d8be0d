import type { Database } from '../../storage/database';
import type { CallbackService } from '../platform/callback.service';
import type { CreditService } from '../platform/credit.service';
import type { LookupV2Service } from '../lookup/lookup-v2.service';
import { LOOKUP_V2_DEFAULTS, toLookupV2Object } from '../lookup/lookup.contract';
import type { StoredSiteReader } from '../lookup/stored-site-reader';
import {
  toCrawlV1Callback,
  toLiveV2Object,
  toLookupV1Callback,
  toTechnology,
  type V1Outcome,
} from './analysis.contract';
import type { AnalysisJobPayload, AnalysisService } from './analysis.service';
import type { Analysis } from './site-analyzer';

export interface AcceptedAnalysesDeps {
  db: Database;
  callbacks: CallbackService;
  credits: CreditService;
  analysis: AnalysisService;
  lookupV2: LookupV2Service;
  storedSites: StoredSiteReader;
}

/**
 * The end of an accepted analysis (Live/Crawl v2 with a callback, Crawl v1, Lookup v1's indexing,
 * Lookup v2's crawl): its callback, in the published form of the endpoint that accepted it, and,
 * when nothing of the site could be analysed, the refund of what acceptance charged, scheduled and
 * written in one transaction. The refund is keyed by the job, so a rerun never refunds twice (the
 * callback itself is at-least-once, like every callback).
 */
export class AcceptedAnalyses {
  constructor(private readonly deps: AcceptedAnalysesDeps) {}

  async finish(job: AnalysisJobPayload, jobId: number, analysis: Analysis): Promise<void> {
    const { db, callbacks, credits } = this.deps;
    const payload = await this.callbackBody(job, analysis);
    const event = `${job.form}.result`;
    const reason = `refund: ${job.form} job ${jobId} failed`;
    const refunded = await db.transaction(async (m) => {
      await callbacks.schedule(m, { accountId: job.accountId, url: job.callbackUrl, event, payload });
      if (analysis.ok || job.charged <= 0) return null;
      return credits.refundOnce(m, `job:${jobId}`, job.accountId, job.charged, reason);
    });
    // Subscribers (creditsChanged) hear of the refund once it is committed.
    if (refunded !== null) credits.announce(job.accountId, refunded, job.charged, reason);
  }

  private async callbackBody(job: AnalysisJobPayload, analysis: Analysis): Promise<unknown> {
    switch (job.form) {
      case 'crawl-v1':
        return toCrawlV1Callback(job.url, v1Outcome(analysis));
      case 'lookup-v1':
        return toLookupV1Callback(job.url, v1Outcome(analysis));
      case 'lookup-v2': {
        const site = analysis.ok ? await this.deps.storedSites.site(analysis.siteUrl) : null;
        if (!analysis.ok || !site)
          return { url: job.url, errors: analysis.ok ? [] : analysis.errors.map((e) => e.message) };
        const presentation = job.lookup ?? LOOKUP_V2_DEFAULTS;
        const lookup = await this.deps.lookupV2.present(job.url, site, 'ANALYSED', {
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
              ...(await this.deps.analysis.storedFields(analysis.siteUrl, job.sets)),
              url: job.url,
              state: 'analysed',
              technologies: analysis.result.technologies.map((t) => toTechnology(t, analysis.analysedAt)),
              errors: [],
            })
          : toLiveV2Object({ url: job.url, state: 'failed', technologies: [], errors: analysis.errors });
    }
  }
}

function v1Outcome(analysis: Analysis): V1Outcome {
  return analysis.ok
    ? { ok: true, technologies: analysis.result.technologies }
    : { ok: false, errors: analysis.errors };
}
