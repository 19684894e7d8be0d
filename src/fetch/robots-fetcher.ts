import type { HttpClient } from './http-client';
import { validatorsOf } from './page-memory';

/** Google reads at most 500 KiB of a robots.txt; so do we. */
const MAX_ROBOTS_BYTES = 500 * 1024;

/** A robots.txt as its last download left it: asked for again conditionally. */
export interface RememberedRobots {
  etag?: string;
  lastModified?: string;
  body: string;
}

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
  /**
   * Where the body was read, with its validators (from this answer, or the remembered ones on a
   * 304; none when the answer had none or was cut): for the next fetch.
   */
  validators?: { url: string; etag?: string; lastModified?: string };
  /** The site answered 304 to the remembered validators: the body is the remembered one. */
  notModified?: boolean;
}

/**
 * The site's robots.txt: evidence for detection and the crawler's rules, never a reason to fail.
 * With `previous` (the last download's body and validators) it is asked for conditionally, and a
 * 304 answer reuses that body: a recrawl then costs the site an empty answer, not the file again.
 */
export async function fetchRobotsTxt(
  client: HttpClient,
  pageUrl: string,
  signal?: AbortSignal,
  previous?: RememberedRobots,
): Promise<RobotsTxt> {
  const robotsUrl = robotsUrlOf(pageUrl);
  try {
    const response = await client.get(robotsUrl, {
      maxBytes: MAX_ROBOTS_BYTES,
      accept: 'text/plain,*/*;q=0.5',
      acceptBody: (contentType) => !/html/i.test(contentType ?? ''),
      signal,
      conditional: previous && { etag: previous.etag, lastModified: previous.lastModified },
    });
    if (response.status === 304 && previous) {
      const { etag, lastModified } = { ...previous, ...validatorsOf(response.headers) };
      return {
        body: previous.body,
        unreachable: false,
        notModified: true,
        validators: { url: robotsUrl, etag, lastModified },
      };
    }
    if (!response.bodyRead) return { unreachable: response.status >= 500 };
    const validators =
      response.status === 200 && !response.truncated ? validatorsOf(response.headers) : undefined;
    return {
      body: new TextDecoder('utf-8').decode(response.body),
      unreachable: false,
      validators: { url: robotsUrl, ...validators },
    };
  } catch {
    return { unreachable: true };
  }
}

/** Where a page's site keeps its robots.txt. */
export function robotsUrlOf(pageUrl: string): string {
  return new URL('/robots.txt', pageUrl).href;
}
