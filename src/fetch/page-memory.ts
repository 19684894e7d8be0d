import type { RememberedRobots } from './robots-fetcher';

/**
 * Conditional re-fetches: what a page's last full download left for the next analysis of the same
 * URL. The page is asked for with If-None-Match / If-Modified-Since; a 304 answer means the page is
 * unchanged, and the caller reuses what it made of it last time (its payload: detection result and
 * title) instead of downloading and detecting it again. Stored in the database by the service layer
 * (src/services/page-validators.ts), one row per URL.
 */
export interface RememberedPage {
  /** ETag of the last full download. */
  etag?: string;
  /** Last-Modified of the last full download. */
  lastModified?: string;
  /** The URL the page answered on (after redirects). */
  url: string;
  /** What a crawl continues from: the page's links, host names and languages. */
  links: string[];
  hostnames: string[];
  languages: string[];
  /** What the analysis made of the page (opaque here). */
  payload: unknown;
}

export interface PageMemory {
  /** The last full download of `url` (the URL asked for), when one left validators. */
  recall(url: string): Promise<RememberedPage | undefined>;
  /** The last download of a site's robots.txt (at `url`), when one left validators. */
  recallRobots?(url: string): Promise<RememberedRobots | undefined>;
}

/** The validators of a response's headers; undefined when it has neither. */
export function validatorsOf(
  headers: Record<string, string[]>,
): { etag?: string; lastModified?: string } | undefined {
  const etag = headers.etag?.[0]?.trim();
  const lastModified = headers['last-modified']?.[0]?.trim();
  const usable = (value: string | undefined, max: number) =>
    value && value.length <= max ? value : undefined;
  const found = { etag: usable(etag, 250), lastModified: usable(lastModified, 60) };
  return found.etag || found.lastModified ? found : undefined;
}
