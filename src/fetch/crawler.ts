import robotsParser from 'robots-parser';
import { contactPageRank } from '../enrichment/page-kind';
import { looksLikeNonHtml, normaliseCrawlUrl, robotsProductToken } from './crawl-url';
import { FetchError } from './fetch-error';
import { HttpClient } from './http-client';
import type { HostBackoffStore } from './host-backoff';
import { systemPacerClock, type PacerClock } from './host-pacing';
import { AssetCache } from './asset-cache';
import { fetchPage, FetchedPage, FetchPageOptions, SiteFacts } from './page-fetcher';
import { robotsUrlOf } from './robots-fetcher';
import { isSameCrawlHost } from './site-scope';

/** The spec's crawl limit: a setting may lower it, never raise it. */
export const CRAWL_HARD_MAX_PAGES = 25;

export const CRAWL_DEFAULTS = {
  maxPages: CRAWL_HARD_MAX_PAGES,
  concurrencyPerHost: 2,
  /** Leaves room inside Lookup's two-minute promise for detection and the callback. */
  deadlineMs: 90_000,
  maxCrawlDelaySeconds: 10,
} as const;

export interface CrawledPage {
  /** The URL that was asked for (normalised). */
  url: string;
  /** Link distance from the start page (0 for the start page). */
  depth: number;
  /** This page is the site's root path "/": technologies seen here are marked as root technologies. */
  isRoot: boolean;
  page?: FetchedPage;
  error?: FetchError;
}

export interface CrawlOptions extends Omit<FetchPageOptions, 'client' | 'siteFacts' | 'connectionsPerHost'> {
  /** Pages fetched at most, start page included (CRAWL_MAX_PAGES, clamped to 1..25). */
  maxPages?: number;
  /** Requests in flight per host (CRAWL_CONCURRENCY_PER_HOST). */
  concurrencyPerHost?: number;
  /** Overall crawl budget; pages not fetched by then are left out. */
  deadlineMs?: number;
  /**
   * Hosts that answered 429/503 (shared by every worker with REDIS_URL): a backed-off host is not
   * asked for further pages until its Retry-After has passed.
   */
  hostBackoff?: HostBackoffStore;
  /**
   * The most seconds of a robots.txt `Crawl-delay` honoured (ROBOTS_CRAWL_DELAY_MAX_SECONDS): the
   * crawl then requests its pages one at a time, each at least that long after the one before;
   * a longer delay is cut to it, 0 ignores Crawl-delay. 10 by default.
   */
  maxCrawlDelaySeconds?: number;
  /** The time source of the Crawl-delay spacing (tests move a clock instead of sleeping). */
  clock?: PacerClock;
  /** Called as each page arrives (e.g. to run detection); awaited, and a throw aborts the crawl. */
  onPage?: (page: CrawledPage) => void | Promise<void>;
}

export interface CrawlResult {
  startUrl: string;
  /** Pages in the order they arrived (contact pages first, then breadth-first), failures included. */
  pages: CrawledPage[];
  /** robots.txt and DNS of the site, fetched once; absent when the start page failed. */
  siteFacts?: SiteFacts;
  /** Union of every page's host names. */
  hostnames: string[];
  /** Union of every page's languages. */
  languages: string[];
  /** The overall deadline cut the crawl short. */
  deadlineReached: boolean;
  /** Links left out because robots.txt disallows them for our user agent. */
  disallowedByRobots: number;
  /** The spacing between page requests robots.txt's Crawl-delay asked for (bounded), when it did. */
  crawlDelayMs?: number;
}

/**
 * Crawls a site from startUrl: the start page (fetched even if robots.txt disallows it: a person
 * asked for that URL), then the site root "/", then the site's contact, imprint, about, team and
 * legal pages wherever they are linked (see src/enrichment/page-kind.ts: the enrichment reads them, so they
 * must fit in the page cap), then the other same-host links breadth-first, until maxPages. Links robots.txt disallows for our user agent, links to files (by extension) and
 * already-seen URLs are skipped. One HttpClient for the crawl: one cookie jar, connections per host
 * bounded. robots.txt and DNS are fetched once, with the start page, and shared by every page.
 * Never rejects for a site's failure (each page carries its FetchError); rejects only when onPage throws.
 */
export async function crawlSite(startUrl: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const maxPages = Math.max(1, Math.min(CRAWL_HARD_MAX_PAGES, options.maxPages ?? CRAWL_DEFAULTS.maxPages));
  const concurrency = Math.max(1, options.concurrencyPerHost ?? CRAWL_DEFAULTS.concurrencyPerHost);
  const deadline = new AbortController();
  const deadlineMs = options.deadlineMs ?? CRAWL_DEFAULTS.deadlineMs;
  const timer = setTimeout(() => deadline.abort(), deadlineMs);
  const clock = options.clock ?? systemPacerClock;
  const endsAt = clock.now() + deadlineMs;
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const client = new HttpClient({ ...options, connectionsPerHost: concurrency });

  const pages: CrawledPage[] = [];
  const seen = new Set<string>();
  let rootMarked = false;
  let siteFacts: SiteFacts | undefined;
  const assetCache = new AssetCache();
  /** Set once the host asked us to wait: no further page is requested in this crawl. */
  let backedOff = false;

  const visit = async (url: string, depth: number): Promise<CrawledPage> => {
    let crawled: CrawledPage;
    const host = URL.canParse(url) ? new URL(url).host : url;
    try {
      const until = (await options.hostBackoff?.blockedUntil(host)) ?? 0;
      if (until > 0) {
        backedOff = true;
        throw new FetchError(
          'RESPONSE_NOT_OK',
          `The host asked for no requests until ${new Date(until).toISOString()} (Retry-After)`,
          429,
          until - Date.now(),
        );
      }
      const page = await fetchPage(url, { ...options, client, siteFacts, signal, assetCache });
      seen.add(normaliseCrawlUrl(page.input.url));
      const isRoot = !rootMarked && new URL(page.input.url).pathname === '/';
      rootMarked ||= isRoot;
      crawled = { url, depth, isRoot, page };
    } catch (error) {
      const fetchError =
        signal.aborted && deadline.signal.aborted
          ? new FetchError('NO_RESPONSE', 'The crawl deadline was reached before the page arrived')
          : toFetchError(error);
      if (fetchError.retryAfterMs !== undefined && !backedOff) {
        backedOff = true;
        await options.hostBackoff?.backOff(host, Date.now() + fetchError.retryAfterMs);
      }
      crawled = { url, depth, isRoot: false, error: fetchError };
    }
    pages.push(crawled);
    await options.onPage?.(crawled);
    return crawled;
  };

  try {
    const start = URL.canParse(startUrl) ? normaliseCrawlUrl(startUrl) : startUrl;
    seen.add(start);
    let lastPageAt = clock.now();
    const first = await visit(start, 0);
    if (!first.page) return result(startUrl, pages, undefined, deadline.signal.aborted, 0);
    siteFacts = first.page.siteFacts;

    const siteUrl = first.page.input.url;
    const userAgent = robotsProductToken(client.userAgent);
    const robots = siteFacts.robots ? robotsParser(robotsUrlOf(siteUrl), siteFacts.robots) : undefined;
    const crawlDelayMs = boundedCrawlDelayMs(robots?.getCrawlDelay(userAgent), options.maxCrawlDelaySeconds);
    let disallowed = 0;
    const admit = (link: string): boolean => {
      const url = normaliseCrawlUrl(link);
      if (seen.has(url) || !isSameCrawlHost(new URL(url).hostname, new URL(siteUrl).hostname)) return false;
      if (looksLikeNonHtml(url)) return false;
      if (siteFacts!.robotsUnreachable || robots?.isDisallowed(url, userAgent) === true) {
        disallowed++;
        seen.add(url);
        return false;
      }
      seen.add(url);
      return true;
    };

    const frontier = new CrawlFrontier();
    const root = new URL('/', siteUrl).href;
    if (admit(root)) frontier.add(root, 1, ROOT_RANK);
    for (const link of first.page.links) if (admit(link)) frontier.add(link, 1);
    await drain(frontier, {
      // With a Crawl-delay, one page at a time, and none that could not start before the deadline.
      workers: crawlDelayMs ? 1 : concurrency,
      budget: () => maxPages - pages.length,
      stopped: () => signal.aborted || backedOff || (crawlDelayMs > 0 && lastPageAt + crawlDelayMs > endsAt),
      visit: async ({ url, depth }) => {
        if (crawlDelayMs) {
          const wait = lastPageAt + crawlDelayMs - clock.now();
          try {
            if (wait > 0) await clock.sleep(wait, signal);
          } catch {
            return; // the crawl's deadline or its caller's cancellation: the page is not asked for
          }
          lastPageAt = clock.now();
        }
        const crawled = await visit(url, depth);
        for (const link of crawled.page?.links ?? []) if (admit(link)) frontier.add(link, depth + 1);
      },
    });
    return {
      ...result(startUrl, pages, siteFacts, deadline.signal.aborted, disallowed),
      ...(crawlDelayMs ? { crawlDelayMs } : {}),
    };
  } finally {
    clearTimeout(timer);
    deadline.abort(); // stops siblings still in flight when onPage threw
    await client.close();
  }
}

function result(
  startUrl: string,
  pages: CrawledPage[],
  siteFacts: SiteFacts | undefined,
  deadlineReached: boolean,
  disallowedByRobots: number,
): CrawlResult {
  const hostnames = new Set<string>();
  const languages = new Set<string>();
  for (const { page } of pages) {
    page?.hostnames.forEach((name) => hostnames.add(name));
    page?.languages.forEach((language) => languages.add(language));
  }
  return {
    startUrl,
    pages,
    siteFacts,
    hostnames: [...hostnames].sort(),
    languages: [...languages],
    deadlineReached,
    disallowedByRobots,
  };
}

/** robots.txt's Crawl-delay (seconds, for our user agent's group) in ms, cut to the bound; 0 when none. */
function boundedCrawlDelayMs(
  seconds: number | undefined,
  maxSeconds: number = CRAWL_DEFAULTS.maxCrawlDelaySeconds,
): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.round(Math.min(seconds, maxSeconds) * 1000);
}

/** The site root comes right after the start page, before even the contact pages. */
const ROOT_RANK = 0;
/** Ordinary pages come after every ranked page. */
const ORDINARY_RANK = Number.MAX_SAFE_INTEGER;

interface FrontierEntry {
  url: string;
  depth: number;
  rank: number;
  order: number;
}

/** Admitted links not fetched yet, taken best first: by rank, then depth, then discovery order. */
class CrawlFrontier {
  private readonly entries: FrontierEntry[] = [];
  private added = 0;

  add(url: string, depth: number, rank = contactPageRank(url) ?? ORDINARY_RANK): void {
    this.entries.push({ url, depth, rank, order: this.added++ });
  }

  /** A crawl holds at most a few thousand links (the extractor caps each page's), so a scan is fine. */
  take(): FrontierEntry | undefined {
    let best = -1;
    for (let i = 0; i < this.entries.length; i++) {
      if (best < 0 || compareEntries(this.entries[i], this.entries[best]) < 0) best = i;
    }
    return best < 0 ? undefined : this.entries.splice(best, 1)[0];
  }
}

function compareEntries(a: FrontierEntry, b: FrontierEntry): number {
  return a.rank - b.rank || a.depth - b.depth || a.order - b.order;
}

/**
 * Runs `workers` visits at a time, each taking the best entry of the frontier when it starts, so a
 * contact page found on page 2 jumps ahead of ordinary links found earlier. A worker that finds the
 * frontier empty waits while others are still fetching (their links may refill it). Pages in flight
 * count against the budget, so the cap is never exceeded.
 */
async function drain(
  frontier: CrawlFrontier,
  options: {
    workers: number;
    budget: () => number;
    stopped: () => boolean;
    visit: (entry: FrontierEntry) => Promise<void>;
  },
): Promise<void> {
  let inFlight = 0;
  let failed = false;
  let wake: (() => void)[] = [];
  const changed = (): Promise<void> => new Promise((resolve) => wake.push(resolve));
  const notify = (): void => {
    const waiting = wake;
    wake = [];
    waiting.forEach((resolve) => resolve());
  };
  const worker = async (): Promise<void> => {
    while (!failed && !options.stopped() && options.budget() - inFlight > 0) {
      const entry = frontier.take();
      if (!entry) {
        if (inFlight === 0) return;
        await changed();
        continue;
      }
      inFlight++;
      try {
        await options.visit(entry);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        inFlight--;
        notify();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers) }, worker));
}

function toFetchError(error: unknown): FetchError {
  return error instanceof FetchError
    ? error
    : new FetchError('NO_RESPONSE', error instanceof Error ? error.message : String(error));
}
