import type { AssetCache } from './asset-cache';
import { decodeText } from './charset-decoder';
import { mapWithConcurrency } from './concurrency';
import type { HttpClient } from './http-client';
import { isSameSite } from './site-scope';

export interface AssetLimits {
  /** Script bodies downloaded per page (FETCH_MAX_SCRIPTS). */
  maxScripts?: number;
  /** Bytes kept of each script. */
  maxScriptBytes?: number;
  /** Stylesheet bodies downloaded per page. */
  maxStylesheets?: number;
  /** Bytes kept of each stylesheet. */
  maxStylesheetBytes?: number;
  /** Asset downloads in flight per page. */
  assetConcurrency?: number;
}

export const ASSET_DEFAULTS = {
  maxScripts: 10,
  maxScriptBytes: 512 * 1024,
  maxStylesheets: 5,
  maxStylesheetBytes: 512 * 1024,
  assetConcurrency: 4,
} as const;

/**
 * Downloads the bodies of a page's same-site assets (the first `count` in document order), for the
 * fingerprints that look inside scripts and stylesheets. Third-party assets are not fetched: their
 * URL already identifies them, and fetching them would multiply the crawl's footprint. An asset that
 * fails, is not 2xx or turns out to be HTML (a soft 404) is skipped; a long one is kept truncated.
 */
export async function fetchSameSiteAssets(
  client: HttpClient,
  pageUrl: string,
  assetUrls: string[],
  limits: { count: number; maxBytes: number; concurrency: number; accept: string },
  signal?: AbortSignal,
  cache?: AssetCache,
): Promise<string[]> {
  const pageHost = new URL(pageUrl).hostname;
  const chosen = assetUrls
    .filter((url) => isSameSite(new URL(url).hostname, pageHost))
    .slice(0, limits.count);
  const load = async (url: string): Promise<string | undefined> => {
    try {
      const response = await client.get(url, {
        maxBytes: limits.maxBytes,
        accept: limits.accept,
        acceptBody: (contentType) => !/text\/html/i.test(contentType ?? ''),
        signal,
      });
      return response.bodyRead ? decodeText(response.body, response.headers['content-type']?.[0]) : undefined;
    } catch {
      return undefined;
    }
  };
  const bodies = await mapWithConcurrency(chosen, limits.concurrency, (url) =>
    cache ? cache.get(url, () => load(url)) : load(url),
  );
  return bodies.filter((body): body is string => body !== undefined);
}
