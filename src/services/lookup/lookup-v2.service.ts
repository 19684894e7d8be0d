import { DENOISE_THRESHOLD } from '../../detection';
import type { EnrichmentSet } from '../../enrichment';
import { ValidationError } from '../../errors';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import { AnalysisService } from '../analysis/analysis.service';
import type { Caller } from '../platform/caller';
import { CallbackService } from '../platform/callback.service';
import type { SiteLookup } from './lookup.contract';
import { MeteringService } from '../platform/metering.service';
import type { SiteAnalyzer } from '../analysis/site-analyzer';
import type { SiteEntity } from '../../storage/entities';
import { AgeWindow, StoredSiteReader } from './stored-site-reader';

export interface LookupV2Input {
  urls: string[];
  /** Analyse now instead of answering from the index. */
  live: boolean;
  /** Crawl (up to 25 pages, answered by callback) rather than analyse one page now. */
  recursive: boolean;
  callbackUrl?: string;
  sets: EnrichmentSet[];
  denoise: boolean;
  squash: boolean;
  window: AgeWindow;
}

export interface PresentOptions {
  sets: readonly EnrichmentSet[];
  denoise: boolean;
  squash: boolean;
  window: AgeWindow;
  now: Date;
}

/** The synchronous budget of a one-page analysis: inside the spec's 30 s request timeout. */
const SYNC_DEADLINE_MS = 25_000;

type Plan = { url: string; site: SiteEntity | null; action: 'stored' | 'analyse' | 'crawl' };

/**
 * GET /v2/lookup/: each URL answered from the index when a result confirmed inside the age window
 * is stored; otherwise (or with live=true) analysed now (recursive=false: one page, synchronous) or
 * crawled with its result POSTed to the callback (recursive=true). Prices: CREDIT_PRICES.lookupV2
 * per URL answered (stored or analysed now; a failed analysis costs nothing), lookupV2Crawl per
 * URL crawled, charged on acceptance and refunded when the site cannot be analysed at all.
 */
export class LookupV2Service {
  constructor(
    private readonly analysis: AnalysisService,
    private readonly analyzer: SiteAnalyzer,
    private readonly reader: StoredSiteReader,
    private readonly metering: MeteringService,
    private readonly callbacks: CallbackService,
  ) {}

  async lookup(caller: Caller, input: LookupV2Input): Promise<SiteLookup[]> {
    if (!input.recursive && input.urls.length > 1)
      throw new ValidationError('urls', 'urls must hold exactly one URL when recursive is false');
    if (input.window.minAge >= input.window.maxAge)
      throw new ValidationError('min_age', 'min_age must be less than max_age');
    const now = new Date();
    const plans = await this.plan([...new Set(input.urls)], input, now);
    const crawled = plans.filter((p) => p.action === 'crawl').map((p) => p.url);
    // Answers read from the index fetch nothing; the URLs analysed or crawled are checked first.
    await this.analysis.assertFetchable(
      plans.filter((p) => p.action !== 'stored').map((p) => p.url),
      'urls',
    );
    let callbackUrl: string | undefined;
    if (crawled.length > 0) {
      if (!input.callbackUrl)
        throw new ValidationError(
          'callback_url',
          `callback_url is required: ${crawled.join(', ')} ${crawled.length === 1 ? 'has' : 'have'} no stored result ` +
            'in the age window (or live=true) and will be crawled; pass recursive=false to analyse one page now',
        );
      callbackUrl = await this.callbacks.validateUrl(input.callbackUrl);
    }
    const answered = CREDIT_PRICES.lookupV2;
    const crawl = CREDIT_PRICES.lookupV2Crawl;
    const options: PresentOptions = { ...input, now };
    return this.metering.run<SiteLookup[]>(
      caller,
      {
        minimumCost: (plans.length - crawled.length) * answered.credits + crawled.length * crawl.credits,
        // The crawls' price is charged with their jobs (enqueueAnalyses); a failed analysis is free.
        cost: (lookups) =>
          lookups.filter((l) => l.state === 'FOUND' || l.state === 'ANALYSED').length * answered.credits,
        reason: answered.endpoint,
        readOnly: plans.every((p) => p.action === 'stored'),
      },
      async () => {
        if (callbackUrl)
          await this.analysis.enqueueAnalyses(caller, crawled, {
            form: 'lookup-v2',
            recursive: true,
            sets: input.sets,
            lookup: { denoise: input.denoise, squash: input.squash, window: input.window },
            callbackUrl,
            chargedEach: crawl.credits,
            reason: crawl.endpoint,
          });
        const out: SiteLookup[] = [];
        for (const plan of plans) out.push(await this.answer(caller, plan, options));
        return out;
      },
    );
  }

  /** The published form of a stored site (the callback of a finished crawl reads it too). */
  async present(
    url: string,
    site: SiteEntity,
    state: 'FOUND' | 'ANALYSED' | 'ACCEPTED',
    options: PresentOptions,
  ): Promise<SiteLookup> {
    const read = {
      window: options.window,
      minConfidence: options.denoise ? DENOISE_THRESHOLD : 0,
      now: options.now,
    };
    if (state === 'ACCEPTED')
      return {
        url,
        state,
        technologies: await this.reader.technologies(site, read),
        months: null,
        errors: [],
      };
    const squashed = options.squash;
    return {
      ...(await this.reader.fields(site, options.sets)),
      url,
      state,
      technologies: squashed ? await this.reader.technologies(site, read) : [],
      months: squashed ? null : await this.reader.months(site, read),
      errors: [],
    };
  }

  private async plan(urls: string[], input: LookupV2Input, now: Date): Promise<Plan[]> {
    const plans: Plan[] = [];
    for (const url of urls) {
      const site = await this.reader.site(url);
      const stored = !input.live && site !== null && this.reader.isFresh(site, input.window, now);
      plans.push({ url, site, action: stored ? 'stored' : input.recursive ? 'crawl' : 'analyse' });
    }
    return plans;
  }

  private async answer(caller: Caller, plan: Plan, options: PresentOptions): Promise<SiteLookup> {
    const { url, site } = plan;
    if (plan.action === 'stored') return this.present(url, site!, 'FOUND', options);
    if (plan.action === 'crawl') {
      if (site) return this.present(url, site, 'ACCEPTED', options);
      return { url, state: 'ACCEPTED', technologies: [], months: null, errors: [] };
    }
    const analysis = await this.analyzer.analyzePage(url, {
      signal: AbortSignal.timeout(SYNC_DEADLINE_MS),
      accountId: caller.principal.accountId,
    });
    if (!analysis.ok)
      return {
        url,
        state: 'FAILED',
        technologies: [],
        months: null,
        errors: analysis.errors.map((e) => e.message),
      };
    const analysed = await this.reader.site(analysis.siteUrl);
    if (!analysed)
      return {
        url,
        state: 'FAILED',
        technologies: [],
        months: null,
        errors: ['The analysis was not recorded'],
      };
    // Just confirmed: the window's lower bound (min_age) does not hide what was analysed now.
    return this.present(url, analysed, 'ANALYSED', {
      ...options,
      window: { minAge: 0, maxAge: options.window.maxAge },
      now: new Date(),
    });
  }
}
