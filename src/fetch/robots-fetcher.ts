import type { HttpClient } from './http-client';

/** Google reads at most 500 KiB of a robots.txt; so do we. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/** What fetching a site's robots.txt found. */
export interface RobotsTxt {
  /** The body, when the site serves one (2xx, not an HTML "soft 404"). */
  body?: string;
  /**
   * True when the file could not be read at all (a network failure, a timeout, a 5xx): RFC 9309
   * (2.3.1.4) says to assume then that everything is disallowed, so the crawler keeps to the start
   * page rather than read pages the site may forbid. A 4xx (no robots.txt) allows everything.
   */
  unreachable: boolean;
}

/** The site's robots.txt: evidence for detection and the crawler's rules, never a reason to fail. */
export async function fetchRobotsTxt(
  client: HttpClient,
  pageUrl: string,
  signal?: AbortSignal,
): Promise<RobotsTxt> {
  const robotsUrl = new URL('/robots.txt', pageUrl).href;
  try {
    const response = await client.get(robotsUrl, {
      maxBytes: MAX_ROBOTS_BYTES,
      accept: 'text/plain,*/*;q=0.5',
      acceptBody: (contentType) => !/html/i.test(contentType ?? ''),
      signal,
    });
    if (!response.bodyRead) return { unreachable: response.status >= 500 };
    return { body: new TextDecoder('utf-8').decode(response.body), unreachable: false };
  } catch {
    return { unreachable: true };
  }
}
