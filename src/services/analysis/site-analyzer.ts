import type { HostBackoffStore } from '../../fetch/host-backoff';
import type { HostSlots } from '../../fetch/host-slots';
import type { HostPacer } from '../../fetch/host-pacing';
import { DetectionEngine, DetectionResult, mergeResults } from '../../detection';
import { EventBus, TOPICS } from '../../platform/event-bus';
import {
  crawlSite,
  FetchError,
  fetchPage,
  FetchedPage,
  FetchPageOptions,
  validatorsOf,
  type PageMemory,
} from '../../fetch';
import { logger } from '../../platform/logger';
import { stageMeter } from '../../platform/stage-meter';
import { emailVerificationSets, type SiteEmailVerifier } from '../../enrichment';
import { titleOf } from './page-title';
import type { SiteEnricher } from './site-enricher';
import type { ServiceMetrics } from '../../platform/service-metrics';
import type { PageRenderer, RenderMode, RenderStatus } from './page-renderer';
import { AnalysedPage, SiteIndexService } from '../site-index/site-index.service';
import type { PageAnalysisPayload, PageValidatorStore } from './page-validators';
import type { PageSampleStore } from './page-samples';
import { engineSourceOf, type EngineSource } from '../fingerprints/engine-source';

export type Analysis =
  | {
      ok: true;
      url: string;
      /** The URL the site answered on (after redirects): the site the index recorded. */
      siteUrl: string;
      result: DetectionResult;
      /** Whether the (root) page was rendered in a browser, and if not, why. */
      render: RenderStatus;
      pages: number;
      analysedAt: Date;
    }
  | { ok: false; url: string; errors: FetchError[]; analysedAt: Date };

export interface AnalysisCompletedEvent {
  /** The account that asked, so subscribers only see their own analyses. */
  accountId: number | null;
  url: string;
  ok: boolean;
  technologies: string[];
  pages: number;
}

export interface AnalyzeOptions {
  signal?: AbortSignal;
  accountId?: number;
  /** The caller's render choice; RENDER (the renderer's default) when absent. */
  render?: RenderMode;
  /**
   * Verify the addresses found (verifiedEmail, safeEmail) before storing the record: background
   * jobs do, a synchronous request does not wait for SMTP conversations (its record keeps no verdicts).
   */
  verifyEmails?: boolean;
}

/** The enrichment step of every analysis (see SiteEnricher); its record goes to the index. */
export interface EnrichmentStep {
  enricher: SiteEnricher;
  /** Absent: addresses are never verified (ENRICH_VERIFY_EMAILS=false). */
  emailVerifier?: SiteEmailVerifier;
}

export interface CrawlSettings {
  maxPages: number;
  concurrencyPerHost: number;
  deadlineMs: number;
  /** Hosts that answered 429/503, left alone until their Retry-After (shared by workers with REDIS_URL). */
  hostBackoff?: HostBackoffStore;
  /** Requests in flight per host across crawls (HOST_CONCURRENCY; across workers with REDIS_URL). */
  hostSlots?: HostSlots;
  /** Requests per second per host across crawls (HOST_REQUESTS_PER_SECOND; across workers with REDIS_URL). */
  hostPacer?: HostPacer;
  /** The longest robots.txt Crawl-delay honoured, in seconds (ROBOTS_CRAWL_DELAY_MAX_SECONDS; 0: ignored). */
  maxCrawlDelaySeconds?: number;
  /** Validators of earlier downloads: re-analyses ask conditionally and reuse a 304 page's result. */
  pageValidators?: PageValidatorStore;
  /** Where the site's front page is sampled after each successful analysis (PAGE_SAMPLES_MAX). */
  pageSamples?: PageSampleStore;
}

/**
 * Fetch → detect → record: the one path by which a site is analysed, for a single page (Analyze,
 * Live/Crawl v2 non-recursive) or a crawl of up to 25 pages (Crawl, Live recursive, Lookup's
 * indexing). Every successful analysis lands in the site index and is announced on the event bus.
 */
export class SiteAnalyzer {
  constructor(
    engine: DetectionEngine | EngineSource,
    private readonly index: SiteIndexService,
    private readonly events: EventBus,
    private readonly fetchOptions: FetchPageOptions,
    private readonly crawlSettings: CrawlSettings,
    private readonly enrichment?: EnrichmentStep,
    private readonly metrics?: ServiceMetrics,
    private readonly renderer: PageRenderer | null = null,
  ) {
    this.engines = engineSourceOf(engine);
  }

  /** The active fingerprints: each analysis takes the engine once and finishes on it. */
  private readonly engines: EngineSource;

  /**
   * One page through the engine, timed for the detection-time histogram; a page that answered 304
   * is not detected again: its last analysis stands.
   */
  private detect(page: FetchedPage, engine: DetectionEngine): DetectionResult {
    if (page.notModified) return (page.notModified.payload as PageAnalysisPayload).result;
    const input = page.input;
    return stageMeter.measure('detect', () =>
      this.metrics ? this.metrics.timeDetection(() => engine.analyze(input)) : engine.analyze(input),
    );
  }

  async analyzePage(url: string, options: AnalyzeOptions = {}): Promise<Analysis> {
    const analysedAt = new Date();
    const engine = this.engines.current();
    let page: FetchedPage;
    try {
      page = await fetchPage(url, {
        ...this.fetchOptions,
        ...this.politeness(engine),
        signal: options.signal,
      });
    } catch (error) {
      return this.failed(url, [asFetchError(error)], analysedAt, options.accountId);
    }
    const rendered = await this.rendered(page, this.detect(page, engine), options, engine);
    const result = rendered.result;
    await this.record(
      url,
      [{ page, result, isRoot: isRootPath(page.input.url) }],
      result,
      withHosts(page.hostnames, rendered.xhrHosts),
      analysedAt,
      options,
    );
    return { ok: true, url, siteUrl: page.input.url, result, render: rendered.status, pages: 1, analysedAt };
  }

  async crawl(url: string, options: AnalyzeOptions = {}): Promise<Analysis> {
    const analysedAt = new Date();
    const engine = this.engines.current();
    const analysed: { page: FetchedPage; result: DetectionResult; isRoot: boolean }[] = [];
    const politeness = this.politeness(engine);
    // A start page that changed makes the rest of the crawl unconditional: the enrichment reads
    // every page's body, and asking an unchanged page conditionally would then cost two requests.
    let startChanged = false;
    const memory = politeness.pageMemory;
    const crawl = await crawlSite(url, {
      ...this.fetchOptions,
      ...politeness,
      pageMemory: memory && {
        recall: (pageUrl) => (startChanged ? Promise.resolve(undefined) : memory.recall(pageUrl)),
        recallRobots: memory.recallRobots?.bind(memory),
      },
      signal: options.signal,
      maxPages: this.crawlSettings.maxPages,
      concurrencyPerHost: this.crawlSettings.concurrencyPerHost,
      deadlineMs: this.crawlSettings.deadlineMs,
      hostBackoff: this.crawlSettings.hostBackoff,
      maxCrawlDelaySeconds: this.crawlSettings.maxCrawlDelaySeconds,
      onPage: (crawled) => {
        if (crawled.depth === 0 && crawled.page && !crawled.page.notModified) startChanged = true;
        if (crawled.page)
          analysed.push({
            page: crawled.page,
            result: this.detect(crawled.page, engine),
            isRoot: crawled.isRoot,
          });
      },
    });
    if (analysed.length === 0) {
      const errors = crawl.pages.map((p) => p.error).filter((e): e is FetchError => Boolean(e));
      const first = errors.length
        ? errors.slice(0, 1)
        : [new FetchError('NO_RESPONSE', 'No page could be fetched')];
      return this.failed(url, first, analysedAt, options.accountId);
    }
    // The first page (the root, or the page asked for) is the one a browser renders: one render per
    // site keeps a crawl's cost bounded while finding what only a browser can.
    const first = analysed[0];
    const rendered = await this.rendered(first.page, first.result, options, engine);
    first.result = rendered.result;
    const merged = mergeResults(analysed.map((a) => a.result));
    await this.record(
      url,
      analysed,
      merged,
      withHosts(crawl.hostnames, rendered.xhrHosts),
      analysedAt,
      options,
    );
    return {
      ok: true,
      url,
      siteUrl: analysed[0].page.input.url,
      result: merged,
      render: rendered.status,
      pages: analysed.length,
      analysedAt,
    };
  }

  /**
   * Until when (epoch ms) the host of `url` asked every worker to wait (429/503 Retry-After); 0 when
   * it may be asked. A background job checks this before crawling, to wait instead of failing.
   */
  async hostBlockedUntil(url: string): Promise<number> {
    const store = this.crawlSettings.hostBackoff;
    if (!store || !URL.canParse(url)) return 0;
    return store.blockedUntil(new URL(url).host);
  }

  /**
   * What every fetch of an analysis shares: per-host slots and pacing, the validators of earlier
   * downloads and the meter of the parse's CPU.
   */
  private politeness(
    engine: DetectionEngine,
  ): Pick<FetchPageOptions, 'hostSlots' | 'hostPacer' | 'pageMemory' | 'measure'> {
    const memory = this.crawlSettings.pageValidators;
    return {
      hostSlots: this.crawlSettings.hostSlots,
      hostPacer: this.crawlSettings.hostPacer,
      pageMemory: memory && sameFingerprints(memory, engine.version),
      measure: (stage, work) => stageMeter.measure(stage, work),
    };
  }

  private async rendered(
    page: FetchedPage,
    result: DetectionResult,
    options: AnalyzeOptions,
    engine: DetectionEngine,
  ): Promise<{ result: DetectionResult; status: RenderStatus; xhrHosts: string[] }> {
    // An unchanged page keeps its stored result, which already holds what a render found.
    if (page.notModified) return { result, status: 'not-needed', xhrHosts: [] };
    if (!this.renderer) return { result, status: 'unavailable', xhrHosts: [] };
    return this.renderer.analyze(page, result, options.render, options.signal, engine);
  }

  private async record(
    url: string,
    analysed: { page: FetchedPage; result: DetectionResult; isRoot: boolean }[],
    merged: DetectionResult,
    hostnames: string[],
    at: Date,
    options: AnalyzeOptions,
  ): Promise<void> {
    const pages: AnalysedPage[] = analysed.map(({ page, result, isRoot }) => ({
      url: page.input.url,
      isRoot,
      technologies: result.technologies,
      languages: page.languages,
      title: isRoot ? titleOfPage(page) : undefined,
    }));
    // The index is keyed by the site that answered (after redirects), not the URL typed in.
    const siteUrl = analysed[0].page.input.url || url;
    const site = await this.index.record({
      url: siteUrl,
      pages,
      technologies: merged.technologies,
      hostnames,
      at,
      fingerprintsVersion: merged.fingerprintsVersion,
    });
    await this.rememberPages(site.id, analysed, at);
    await this.samplePage(site.id, analysed, at);
    // Pages that answered 304 have no body to read: when none was downloaded the previous record
    // stays; when some were, the unchanged ones are downloaded too (a record read from the changed
    // pages alone would replace the whole site's record with part of it).
    const downloaded = await this.pagesToEnrich(analysed, options.signal);
    if (downloaded.length > 0)
      await this.enrich(
        siteUrl,
        downloaded,
        merged,
        { at, trafficRank: site.trafficRank ?? undefined },
        options,
      );
    const event: AnalysisCompletedEvent = {
      accountId: options.accountId ?? null,
      url,
      ok: true,
      technologies: merged.technologies.map((t) => t.slug),
      pages: pages.length,
    };
    this.events.publish(TOPICS.analysisCompleted, event);
  }

  /**
   * The pages the enrichment reads: none when every page answered 304 (nothing changed), else every
   * page with its body, the unchanged ones downloaded again (a page that fails then is left out).
   */
  private async pagesToEnrich(
    analysed: { page: FetchedPage }[],
    signal: AbortSignal | undefined,
  ): Promise<FetchedPage[]> {
    const changed = analysed.filter((a) => !a.page.notModified);
    if (!this.enrichment || changed.length === 0 || changed.length === analysed.length)
      return changed.map((a) => a.page);
    const { hostSlots, hostPacer } = this.crawlSettings;
    const pages = await Promise.all(
      analysed.map(({ page }) =>
        page.notModified
          ? fetchPage(page.requestedUrl, {
              ...this.fetchOptions,
              hostSlots,
              hostPacer,
              siteFacts: page.siteFacts,
              signal,
            }).catch(() => undefined)
          : page,
      ),
    );
    return pages.filter((page): page is FetchedPage => page !== undefined);
  }

  /** Validators and results of the pages, for the next analysis's conditional requests. */
  private async rememberPages(
    siteId: number,
    analysed: { page: FetchedPage; result: DetectionResult; isRoot: boolean }[],
    at: Date,
  ): Promise<void> {
    const store = this.crawlSettings.pageValidators;
    if (!store) return;
    const pages = analysed.flatMap(({ page, result, isRoot }) => {
      const validators = page.notModified ?? validatorsOf(page.input.headers ?? {});
      if (!validators) return [];
      const payload: PageAnalysisPayload = { result, title: isRoot ? titleOfPage(page) : undefined };
      return [
        {
          requestedUrl: page.requestedUrl,
          etag: validators.etag,
          lastModified: validators.lastModified,
          url: page.input.url,
          links: page.links,
          hostnames: page.hostnames,
          languages: page.languages,
          payload,
        },
      ];
    });
    const facts = analysed[0]?.page.siteFacts;
    const robots =
      facts?.robotsValidators && facts.robots !== undefined
        ? { ...facts.robotsValidators, body: facts.robots }
        : undefined;
    await store.remember(siteId, pages, at, robots).catch((error: unknown) => {
      logger.warn({ err: error, siteId }, "could not store the pages' validators");
    });
  }

  /**
   * The site's front page, as the engine saw it, into the page samples: a page that answered 304
   * brought no body (its sample stays), and a page other than the front page is not sampled.
   */
  private async samplePage(
    siteId: number,
    analysed: { page: FetchedPage; isRoot: boolean }[],
    at: Date,
  ): Promise<void> {
    const store = this.crawlSettings.pageSamples;
    const front = analysed.find((a) => a.isRoot);
    if (!store?.enabled || !front || front.page.notModified) return;
    await store.capture(siteId, front.page.input, at).catch((error: unknown) => {
      logger.warn({ err: error, siteId }, 'could not store the page sample');
    });
  }

  /**
   * The enriched record of the analysed pages, stored in the index. A failure here is logged and
   * leaves the previous record in place: the technologies of the analysis are already recorded.
   */
  private async enrich(
    siteUrl: string,
    pages: FetchedPage[],
    merged: DetectionResult,
    facts: { at: Date; trafficRank?: number },
    options: AnalyzeOptions,
  ): Promise<void> {
    if (!this.enrichment) return;
    try {
      const record = await this.enrichment.enricher.enrichForIndex(pages, merged.technologies, {
        trafficRank: facts.trafficRank,
      });
      const verifier = this.enrichment.emailVerifier;
      const emails = record.enrichment.email.email ?? [];
      if (verifier && options.verifyEmails && emails.length > 0 && !options.signal?.aborted) {
        const verdicts = await verifier.verifyAll(emails, options.signal);
        Object.assign(record.enrichment.email, emailVerificationSets(emails, verdicts));
      }
      await this.index.recordEnrichment(siteUrl, record, facts.at, pages.length);
    } catch (error) {
      logger.warn({ err: error, site: siteUrl }, 'enrichment failed; the previous record stays');
    }
  }

  private async failed(
    url: string,
    errors: FetchError[],
    analysedAt: Date,
    accountId: number | undefined,
  ): Promise<Analysis> {
    const event: AnalysisCompletedEvent = {
      accountId: accountId ?? null,
      url,
      ok: false,
      technologies: [],
      pages: 0,
    };
    this.events.publish(TOPICS.analysisCompleted, event);
    logger.debug({ url, errors: errors.map((e) => e.type) }, 'analysis failed');
    // A known site remembers the attempt (events.crawlAttemptedAt); an unknown one is not created.
    await this.index.recordAttempt(url, analysedAt).catch((error: unknown) => {
      logger.warn({ err: error }, 'could not record the analysis attempt');
    });
    return { ok: false, url, errors, analysedAt };
  }
}

/**
 * The page memory, but only for pages whose stored result these fingerprints produced: a page
 * detected with other fingerprints is downloaded and detected again, so a 304 never carries an old
 * rule set's result (and its version) into an analysis made after a switch.
 */
export function sameFingerprints(memory: PageMemory, version: string): PageMemory {
  return {
    recall: async (url) => {
      const page = await memory.recall(url);
      const payload = page?.payload as Partial<PageAnalysisPayload> | undefined;
      return payload?.result?.fingerprintsVersion === version ? page : undefined;
    },
    // A robots.txt is the site's text, not a result of the fingerprints.
    recallRobots: memory.recallRobots?.bind(memory),
  };
}

function asFetchError(error: unknown): FetchError {
  if (error instanceof FetchError) return error;
  return new FetchError('NO_RESPONSE', error instanceof Error ? error.message : String(error));
}

function withHosts(hostnames: string[], more: string[]): string[] {
  return more.length ? [...new Set([...hostnames, ...more])] : hostnames;
}

/** The page's title: from its HTML, or as its last analysis found it when it answered 304. */
function titleOfPage(page: FetchedPage): string | undefined {
  if (page.notModified) return (page.notModified.payload as PageAnalysisPayload).title;
  return titleOf(page.input.html);
}

function isRootPath(url: string): boolean {
  try {
    return new URL(url).pathname === '/';
  } catch {
    return false;
  }
}
