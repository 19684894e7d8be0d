import type { HttpClient } from './http-client';

/** Google reads at most 500 KiB of a robots.txt; so do we. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/**
 * The site's robots.txt body, or undefined when it has none (any non-2xx, an HTML "soft 404", a
 * network failure): it is evidence for detection and the crawler's rules, never a reason to fail.
 */
export async function fetchRobotsTxt(
  client: HttpClient,
  pageUrl: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const robotsUrl = new URL('/robots.txt', pageUrl).href;
  try {
    const response = await client.get(robotsUrl, {
      maxBytes: MAX_ROBOTS_BYTES,
      accept: 'text/plain,*/*;q=0.5',
      acceptBody: (contentType) => !/html/i.test(contentType ?? ''),
      signal,
    });
    if (!response.bodyRead) return undefined;
    return new TextDecoder('utf-8').decode(response.body);
  } catch {
    return undefined;
  }
}
