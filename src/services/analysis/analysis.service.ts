import { DENOISE_THRESHOLD } from '../../detection';
import { ValidationError } from '../../errors';
import { JobKinds } from '../../jobs/job-kinds';
import { JobQueue } from '../../jobs/job-queue';
import { assertFetchableUrl, UrlGuardOptions } from '../../fetch/private-address-guard';
import { Database } from '../../storage/database';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { DetectedTechnology, SkippedTechnology } from '../../detection';
import type { RenderMode, RenderStatus } from './page-renderer';
import { ErrorObject, toErrorObject } from './analysis.contract';
import type { Caller } from '../platform/caller';
import { CallbackService } from '../platform/callback.service';
import { CreditService } from '../platform/credit.service';
import { MeteringService } from '../platform/metering.service';
import type { EnrichmentSet } from '../../enrichment';
import type { EnrichmentFields } from './enrichment-fields';
import type { AgeWindow, StoredSiteReader } from '../lookup/stored-site-reader';
import { LookupMonth, SiteIndexService } from '../site-index/site-index.service';
import { SiteAnalyzer } from './site-analyzer';

/** What an analysis job does and which callback body it produces. */
export type AnalysisForm = 'live-v2' | 'crawl-v2' | 'crawl-v1' | 'lookup-v1' | 'lookup-v2';

/** How a Lookup v2 callback presents the site (the request's denoise, squash and age window). */
export interface LookupPresentation {
  denoise: boolean;
  squash: boolean;
  window: AgeWindow;
}

export interface AnalysisJobPayload {
  accountId: number;
  requestId: string;
  url: string;
  form: AnalysisForm;
  recursive: boolean;
  sets: EnrichmentSet[];
  /** Lookup v2 only. */
  lookup?: LookupPresentation;
  callbackUrl: string;
  /** Credits charged when the request was accepted: refunded if the analysis fails entirely. */
  charged: number;
}

/** The outcome for one URL; transports shape it into their documented forms. */
export type UrlOutcome =
  | {
      url: string;
      state: 'analysed';
      siteUrl: string;
      technologies: DetectedTechnology[];
      analysedAt: Date;
      /** The fingerprint version that detected them (DetectionResult.fingerprintsVersion). */
      fingerprintsVersion: string;
      /** The field sets asked for (sets=), as the index stored them. */
      fields: EnrichmentFields;
      /** Whether a browser rendered the page, and if not why (absent: not told). */
      render?: RenderStatus;
      /** Technologies only a browser could confirm, left untried. */
      skipped?: SkippedTechnology[];
    }
  | { url: string; state: 'failed'; errors: ErrorObject[] }
  | { url: string; state: 'accepted' };

export type LookupOutcome =
  | { kind: 'found'; months: readonly LookupMonth[] }
  | { kind: 'received' }
  | { kind: 'not-found'; url: string };

export interface LiveInput {
  urls: string[];
  callbackUrl?: string;
  recursive: boolean;
  sets: EnrichmentSet[];
}

/** The synchronous budget of Analyze and Live/Crawl v2: inside the spec's 30 s request timeout. */
const SYNC_DEADLINE_MS = 25_000;

/**
 * The analysis endpoints (Analyze v1, Live v2, Crawl v2, Crawl v1, Lookup v1) as service calls.
 * Synchronous ones analyse inline and are charged only when they succeed; asynchronous ones are
 * charged on acceptance, in the transaction that enqueues their jobs (a request that loses the race
 * for the last credits leaves no job behind), run as durable jobs, POST their result to the
 * callback, and refund the charge when the site could not be analysed at all.
 */
export class AnalysisService {
  constructor(
    private readonly db: Database,
    private readonly analyzer: SiteAnalyzer,
    private readonly index: SiteIndexService,
    private readonly metering: MeteringService,
    private readonly callbacks: CallbackService,
    private readonly queue: JobQueue,
    private readonly credits: CreditService,
    private readonly reader: StoredSiteReader,
    /** ALLOW_PRIVATE_TARGETS and the DNS_SERVERS resolver: which targets are refused at once. */
    private readonly targets: UrlGuardOptions,
  ) {}

  /**
   * Refuses a request whose target is private (400 TARGET_FORBIDDEN naming `parameter`) before it
   * is charged, counted or queued: every endpoint that fetches a site answers a refused target the
   * same way, instead of a 202 refunded later or an error type that blames the target.
   */
  async assertFetchable(urls: readonly string[], parameter: string): Promise<void> {
    // The host names are looked up together (ten slow answers would add up), the first refused URL
    // in the request's order named.
    const checks = await Promise.allSettled(
      urls.map((url) => assertFetchableUrl(url, this.targets, parameter)),
    );
    const refused = checks.find((check) => check.status === 'rejected');
    if (refused) throw refused.reason;
  }

  /** GET /analyze/v1/: one page, now. A failure is a normal answer (status error), counted but not charged. */
  async analyzeV1(caller: Caller, url: string, render?: RenderMode): Promise<UrlOutcome> {
    await this.assertFetchable([url], 'url');
    const price = CREDIT_PRICES.analyze;
    return this.metering.run(
      caller,
      {
        minimumCost: price.credits,
        cost: (out) => (out.state === 'analysed' ? price.credits : 0),
        reason: price.endpoint,
      },
      () => this.analyseNow(caller, url, [], render),
    );
  }

  /** GET /live/v2/ and GET /crawl/v2/. */
  async liveV2(caller: Caller, input: LiveInput, form: 'live-v2' | 'crawl-v2'): Promise<UrlOutcome[]> {
    const urls = [...new Set(input.urls)];
    const prices =
      form === 'live-v2'
        ? { page: CREDIT_PRICES.liveUrl, crawl: CREDIT_PRICES.liveCrawl }
        : { page: CREDIT_PRICES.crawlV2Url, crawl: CREDIT_PRICES.crawlV2Crawl };
    // The spec: with recursive=false the request is synchronous and only one URL may be given.
    if (!input.recursive && urls.length > 1) {
      throw new ValidationError('urls', 'urls must hold one URL when recursive is false');
    }
    if (input.recursive && !input.callbackUrl) {
      throw new ValidationError(
        'callback_url',
        'callback_url is required when recursive is true (the default)',
      );
    }
    // recursive=false is synchronous (the spec: no callback is needed); a callback_url given anyway
    // is not used. Recursive requests are answered by callback.
    await this.assertFetchable(urls, 'urls');
    if (input.recursive && input.callbackUrl) {
      const callbackUrl = await this.callbacks.validateUrl(input.callbackUrl);
      const price = prices.crawl;
      const total = price.credits * urls.length;
      return this.metering.run(caller, { minimumCost: total, cost: () => 0, reason: price.endpoint }, () =>
        this.enqueueAnalyses(caller, urls, {
          form,
          recursive: input.recursive,
          sets: input.sets,
          callbackUrl,
          chargedEach: price.credits,
          reason: price.endpoint,
        }),
      );
    }
    const price = prices.page;
    return this.metering.run(
      caller,
      {
        minimumCost: price.credits,
        cost: (out) => (out[0].state === 'analysed' ? price.credits : 0),
        reason: price.endpoint,
      },
      async () => [await this.analyseNow(caller, urls[0], input.sets)],
    );
  }

  private async analyseNow(
    caller: Caller,
    url: string,
    sets: EnrichmentSet[],
    render?: RenderMode,
  ): Promise<UrlOutcome> {
    const analysis = await this.analyzer.analyzePage(url, {
      signal: AbortSignal.timeout(SYNC_DEADLINE_MS),
      accountId: caller.principal.accountId,
      render,
    });
    if (!analysis.ok) return { url, state: 'failed', errors: analysis.errors.map(toErrorObject) };
    return {
      url,
      state: 'analysed',
      siteUrl: analysis.siteUrl,
      technologies: analysis.result.technologies,
      analysedAt: analysis.analysedAt,
      fingerprintsVersion: analysis.result.fingerprintsVersion,
      fields: await this.storedFields(analysis.siteUrl, sets),
      render: analysis.render,
      skipped: analysis.result.skipped,
    };
  }

  /** The field sets of a site as the index holds them (the analysis just stored them). */
  async storedFields(siteUrl: string, sets: readonly EnrichmentSet[]): Promise<EnrichmentFields> {
    if (sets.length === 0) return {};
    const site = await this.reader.site(siteUrl);
    return site ? this.reader.fields(site, sets) : {};
  }

  /** GET /crawl/v1/: accepted now (202), crawled by a job, result POSTed to the callback. */
  async crawlV1(caller: Caller, url: string, callbackUrl: string): Promise<void> {
    await this.assertFetchable([url], 'url');
    const valid = await this.callbacks.validateUrl(callbackUrl);
    const price = CREDIT_PRICES.crawlV1;
    await this.metering.run(
      caller,
      { minimumCost: price.credits, cost: () => 0, reason: price.endpoint },
      () =>
        this.enqueueAnalyses(caller, [url], {
          form: 'crawl-v1',
          recursive: true,
          sets: [],
          callbackUrl: valid,
          chargedEach: price.credits,
          reason: price.endpoint,
        }),
    );
  }

  /** GET /lookup/v1/: the index's months (200), or indexing with a callback (202), or nothing (404, still counted). */
  async lookupV1(
    caller: Caller,
    url: string,
    options: { callbackUrl?: string; denoise: boolean },
  ): Promise<LookupOutcome> {
    const callbackUrl = options.callbackUrl
      ? await this.callbacks.validateUrl(options.callbackUrl)
      : undefined;
    const hit = CREDIT_PRICES.lookupHit;
    const indexing = CREDIT_PRICES.lookupIndex;
    // The stored answer is read first: when it is there (or there is nothing to enqueue), the call
    // only reads, and is counted and charged in one settlement after the read.
    const months = await this.index.lookup(url, {
      minConfidence: options.denoise ? DENOISE_THRESHOLD : 0,
    });
    if (months || !callbackUrl) {
      return this.metering.run<LookupOutcome>(
        caller,
        {
          minimumCost: 0,
          cost: (outcome) => (outcome.kind === 'found' ? hit.credits : 0),
          reason: hit.endpoint,
          readOnly: true,
        },
        () => Promise.resolve(months ? { kind: 'found', months } : { kind: 'not-found', url }),
      );
    }
    // Only a lookup that indexes the site fetches it: a stored answer or a 404 reads the index.
    await this.assertFetchable([url], 'url');
    return this.metering.run<LookupOutcome>(
      caller,
      // The 202's price is charged with its job (see enqueueAnalyses).
      { minimumCost: 0, cost: () => 0, reason: hit.endpoint },
      async () => {
        await this.enqueueAnalyses(caller, [url], {
          form: 'lookup-v1',
          recursive: true,
          sets: [],
          callbackUrl,
          chargedEach: indexing.credits,
          reason: indexing.endpoint,
        });
        return { kind: 'received' };
      },
    );
  }

  /**
   * Charges the request and enqueues one analysis job per URL in one transaction: all are accepted
   * and paid for, or none (InsufficientCreditsError leaves no job behind).
   */
  async enqueueAnalyses(
    caller: Caller,
    urls: string[],
    job: {
      form: AnalysisForm;
      recursive: boolean;
      sets: EnrichmentSet[];
      lookup?: LookupPresentation;
      callbackUrl: string;
      chargedEach: number;
      reason: string;
    },
  ): Promise<UrlOutcome[]> {
    const charged = caller.principal.isDemo ? 0 : job.chargedEach;
    const total = charged * urls.length;
    const balance = await this.db.transaction(async (m) => {
      const after = total > 0 ? await this.credits.chargeWithin(m, caller, total, job.reason) : null;
      for (const url of urls) {
        const payload: AnalysisJobPayload = {
          accountId: caller.principal.accountId,
          requestId: caller.requestId,
          url,
          form: job.form,
          recursive: job.recursive,
          sets: job.sets,
          ...(job.lookup ? { lookup: job.lookup } : {}),
          callbackUrl: job.callbackUrl,
          charged,
        };
        await this.queue.enqueue(m, JobKinds.analysis, payload, { maxAttempts: 3 });
      }
      return after;
    });
    if (balance !== null) this.credits.announce(caller.principal.accountId, balance, -total, job.reason);
    return urls.map((url) => ({ url, state: 'accepted' as const }));
  }
}
