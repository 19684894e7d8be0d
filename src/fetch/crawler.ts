import robotsParser from 'robots-parser';
import { mapWithConcurrency } from './concurrency';
import { looksLikeNonHtml, normaliseCrawlUrl, robotsProductToken } from './crawl-url';
import { FetchError } from './fetch-error';
import { HttpClient } from './http-client';
import { fetchPage, FetchedPage, FetchPageOptions, SiteFacts } from './page-fetcher';
import { isSameCrawlHost } from './site-scope';

/** The spec's crawl limit: a setting may lower it, never raise it. */
export const CRAWL_HARD_MAX_PAGES = 25;

export const CRAWL_DEFAULTS = {
  maxPages: CRAWL_HARD_MAX_PAGES,
  concurrencyPerHost: 2,
  /** Leaves room inside Lookup's two-minute promise for detection and the callback. */
  deadlineMs: 90_000,
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
  /** Called as each page arrives (e.g. to run detection); awaited, and a throw aborts the crawl. */
  onPage?: (page: CrawledPage) => void | Promise<void>;
}

export interface CrawlResult {
  startUrl: string;
  /** Pages in the order they were fetched (breadth-first), failures included. */
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
}

/**
 * Crawls a site breadth-first from startUrl: the start page (fetched even if robots.txt disallows
 * it: a person asked for that URL), then the site root "/", then same-host links level by level,
 * until maxPages. Links robots.txt disallows for our user agent, links to files (by extension) and
 * already-seen URLs are skipped. One HttpClient for the crawl: one cookie jar, connections per host
 * bounded. robots.txt and DNS are fetched once, with the start page, and shared by every page.
 * Never rejects for a site's failure (each page carries its FetchError); rejects only when onPage throws.
 */
export async function crawlSite(startUrl: string, options: CrawlOptions = {}): Promise<CrawlResult> {
  const maxPages = Math.max(1, Math.min(CRAWL_HARD_MAX_PAGES, options.maxPages ?? CRAWL_DEFAULTS.maxPages));
  const concurrency = Math.max(1, options.concurrencyPerHost ?? CRAWL_DEFAULTS.concurrencyPerHost);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.deadlineMs ?? CRAWL_DEFAULTS.deadlineMs);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const client = new HttpClient({ ...options, connectionsPerHost: concurrency });

  const pages: CrawledPage[] = [];
  const seen = new Set<string>();
  let rootMarked = false;
  let siteFacts: SiteFacts | undefined;

  const visit = async (url: string, depth: number): Promise<CrawledPage> => {
    let crawled: CrawledPage;
    try {
      const page = await fetchPage(url, { ...options, client, siteFacts, signal });
      seen.add(normaliseCrawlUrl(page.input.url));
      const isRoot = !rootMarked && new URL(page.input.url).pathname === '/';
      rootMarked ||= isRoot;
      crawled = { url, depth, isRoot, page };
    } catch (error) {
      const fetchError =
        signal.aborted && deadline.signal.aborted
          ? new FetchError('NO_RESPONSE', 'The crawl deadline was reached before the page arrived')
          : toFetchError(error);
      crawled = { url, depth, isRoot: false, error: fetchError };
    }
    pages.push(crawled);
    await options.onPage?.(crawled);
    return crawled;
  };

  try {
    const start = URL.canParse(startUrl) ? normaliseCrawlUrl(startUrl) : startUrl;
    seen.add(start);
    const first = await visit(start, 0);
    if (!first.page) return result(startUrl, pages, undefined, deadline.signal.aborted, 0);
    siteFacts = first.page.siteFacts;

    const siteUrl = first.page.input.url;
    const userAgent = robotsProductToken(client.userAgent);
    const robots = siteFacts.robots
      ? robotsParser(new URL('/robots.txt', siteUrl).href, siteFacts.robots)
      : undefined;
    let disallowed = 0;
    const admit = (link: string): boolean => {
      const url = normaliseCrawlUrl(link);
      if (seen.has(url) || !isSameCrawlHost(new URL(url).hostname, new URL(siteUrl).hostname)) return false;
      if (looksLikeNonHtml(url)) return false;
      if (robots?.isDisallowed(url, userAgent) === true) {
        disallowed++;
        seen.add(url);
        return false;
      }
      seen.add(url);
      return true;
    };

    let level = [new URL('/', siteUrl).href, ...first.page.links].filter(admit);
    for (let depth = 1; level.length > 0 && !signal.aborted; depth++) {
      const budget = maxPages - pages.length;
      if (budget <= 0) break;
      const batch = level.slice(0, budget);
      const visited = await mapWithConcurrency(batch, concurrency, (url) =>
        signal.aborted ? Promise.resolve(undefined) : visit(url, depth),
      );
      level = visited.flatMap((crawled) => crawled?.page?.links ?? []).filter((link) => admit(link));
    }
    return result(startUrl, pages, siteFacts, deadline.signal.aborted, disallowed);
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

function toFetchError(error: unknown): FetchError {
  return error instanceof FetchError
    ? error
    : new FetchError('NO_RESPONSE', error instanceof Error ? error.message : String(error));
}
