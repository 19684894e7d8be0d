import type { AssetCache } from './asset-cache';
import { Cookie } from 'tough-cookie';
import { withParsedHtml, type DetectionInput } from '../detection/detection-input';
import { ASSET_DEFAULTS, AssetLimits, fetchSameSiteAssets } from './asset-fetcher';
import { decodeHtml } from './charset-decoder';
import { DnsFacts, resolveDnsFacts } from './dns-facts';
import { DEFAULT_BACKOFF_MS, retryAfterMs } from './host-backoff';
import { FetchError } from './fetch-error';
import { parsePageHtml } from '../html';
import { htmlFactsOf } from './html-extractor';
import { HttpClient, HttpClientOptions, HttpResponse, RedirectHop } from './http-client';
import { HostnameCollector } from './observed-hostnames';
import { normaliseLanguages } from './page-language';
import { fetchRobotsTxt, robotsUrlOf } from './robots-fetcher';
import type { CertificateFacts } from './tls-certificate';
import type { PageMemory, RememberedPage } from './page-memory';

/** Facts about a whole site, fetched once per site (per crawl), not per page. */
export interface SiteFacts {
  /** robots.txt body, when the site has one. */
  robots?: string;
  /** robots.txt could not be read (network failure, timeout, 5xx): a crawl keeps to its start page. */
  robotsUnreachable?: boolean;
  /** Where robots.txt was read and its validators, for the next analysis's conditional request. */
  robotsValidators?: { url: string; etag?: string; lastModified?: string };
  dns: DnsFacts;
}

export interface FetchPageOptions extends HttpClientOptions, AssetLimits {
  /** A client to reuse (a crawl's: its cookie jar and connections); otherwise one is made and closed. */
  client?: HttpClient;
  /** Site facts already known (a crawl's later pages); fetched alongside the page otherwise. */
  siteFacts?: SiteFacts;
  /** A crawl's shared assets: each script and stylesheet fetched once per crawl. */
  assetCache?: AssetCache;
  /** DNS_SERVERS for the DNS facts; the system's resolvers when empty. */
  dnsServers?: string[];
  /** Per-query DNS timeout. */
  dnsTimeoutMs?: number;
  /** Aborts everything (a crawl's or an API request's deadline). */
  signal?: AbortSignal;
  /** Validators of earlier downloads: a page that answers 304 comes back as `notModified`. */
  pageMemory?: PageMemory;
  /** Accounts the CPU of the page's parse (a worker's per-stage figures); absent: not measured. */
  measure?: <T>(stage: 'parse', work: () => T) => T;
}

/** One fetched page: what detection needs, plus what the index and the crawler need. */
export interface FetchedPage {
  /** The detection engine's input (url after redirects, status, headers, cookies, html, assets, facts). */
  input: DetectionInput;
  requestedUrl: string;
  redirects: RedirectHop[];
  contentType: string;
  /** Encoding the HTML was decoded from. */
  charset: string;
  /** The HTML was longer than the body cap and was cut. */
  truncated: boolean;
  /** Lowercase language tags: <html lang>, Content-Language, og:locale, meta content-language. */
  languages: string[];
  /** Absolute http(s) link targets of the page, deduplicated, in document order. */
  links: string[];
  /** Every host name the page revealed (links, assets, redirects, CSP/CORS/Link headers, certificate). */
  hostnames: string[];
  /** The TLS certificate (and negotiated protocol) of an https page's origin. */
  certificate?: CertificateFacts;
  /** The IP address the connection to the page's origin reached (for GeoIP); absent if unknown. */
  remoteAddress?: string;
  siteFacts: SiteFacts;
  /**
   * Set when the page answered 304 Not Modified to the validators of its last download: the body
   * was not sent (input.html is empty), and this is what that download left (links, host names,
   * languages and the caller's payload, which stands for the page's analysis).
   */
  notModified?: RememberedPage;
}

const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

/** Content types whose body is worth reading as a page; a missing one is sniffed after reading. */
function mayBeHtml(contentType: string | undefined): boolean {
  return contentType === undefined || /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType);
}

/**
 * Fetches one page and everything detection looks at. Rejects with FetchError: NO_RESPONSE (no
 * answer, timeout, refused target, DNS failure), RESPONSE_NOT_OK (final status not 200, redirect
 * loop or too many redirects), NO_HTML_DOCUMENT (answered, but not with HTML).
 */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const client = options.client ?? new HttpClient(options);
  try {
    return await fetchWith(client, url, options);
  } finally {
    if (!options.client) await client.close();
  }
}

async function fetchWith(client: HttpClient, url: string, options: FetchPageOptions): Promise<FetchedPage> {
  let response: HttpResponse;
  // A memory that fails only costs the conditional request: the page is downloaded.
  const previous = await options.pageMemory?.recall(url).catch(() => undefined);
  try {
    response = await client.get(url, {
      accept: HTML_ACCEPT,
      acceptBody: mayBeHtml,
      signal: options.signal,
      conditional: previous && { etag: previous.etag, lastModified: previous.lastModified },
    });
  } catch (error) {
    if (error instanceof FetchError) throw error;
    // Only a malformed URL gets here (the client maps every network failure).
    throw new FetchError('NO_RESPONSE', error instanceof Error ? error.message : String(error));
  }

  if (response.status === 304 && previous) return notModifiedPage(client, url, response, previous, options);
  const contentType = response.headers['content-type']?.[0];
  if (response.status !== 200) {
    const busy = response.status === 429 || response.status === 503;
    throw new FetchError(
      'RESPONSE_NOT_OK',
      `The server answered with HTTP ${response.status}`,
      response.status,
      busy
        ? (retryAfterMs(response.headers['retry-after']?.[0], Date.now()) ?? DEFAULT_BACKOFF_MS)
        : undefined,
    );
  }
  if (!response.bodyRead) {
    throw new FetchError('NO_HTML_DOCUMENT', `The response is ${contentType}, not HTML`, response.status);
  }
  const decoded = decodeHtml(response.body, contentType);
  if (
    decoded.text.trim() === '' ||
    (contentType === undefined && !/<(!doctype\s+html|html|head|body)\b/i.test(decoded.text.slice(0, 2048)))
  ) {
    throw new FetchError('NO_HTML_DOCUMENT', 'The response holds no HTML document', response.status);
  }

  const finalUrl = response.url;
  // The page is read once, here; detection and enrichment use the same reading (input.parsed).
  const parsed = options.measure
    ? options.measure('parse', () => parsePageHtml(decoded.text))
    : parsePageHtml(decoded.text);
  const facts = htmlFactsOf(parsed, finalUrl);
  const assetConcurrency = options.assetConcurrency ?? ASSET_DEFAULTS.assetConcurrency;
  // robots.txt first: its request then takes a connection before the assets' queue for the host's
  // few, so it is not the one that waits out its timeout behind slow scripts (unread, a crawl would
  // keep to its start page).
  const factsRead = options.siteFacts ?? fetchSiteFacts(client, finalUrl, options);
  const [scripts, css, siteFacts] = await Promise.all([
    fetchSameSiteAssets(
      client,
      finalUrl,
      facts.scriptSrc,
      {
        count: options.maxScripts ?? ASSET_DEFAULTS.maxScripts,
        maxBytes: options.maxScriptBytes ?? ASSET_DEFAULTS.maxScriptBytes,
        concurrency: assetConcurrency,
        accept: '*/*',
      },
      options.signal,
      options.assetCache,
    ),
    fetchSameSiteAssets(
      client,
      finalUrl,
      facts.stylesheets,
      {
        count: options.maxStylesheets ?? ASSET_DEFAULTS.maxStylesheets,
        maxBytes: options.maxStylesheetBytes ?? ASSET_DEFAULTS.maxStylesheetBytes,
        concurrency: assetConcurrency,
        accept: 'text/css,*/*;q=0.1',
      },
      options.signal,
      options.assetCache,
    ),
    factsRead,
  ]);

  const certificate = client.certificateOf(finalUrl);
  const remoteAddress = client.remoteAddressOf(finalUrl);
  const hostnames = new HostnameCollector();
  hostnames.addUrl(url);
  for (const hop of response.redirects) {
    hostnames.addUrl(hop.url);
    hostnames.addUrl(hop.location);
  }
  for (const list of [facts.links, facts.scriptSrc, facts.stylesheets, facts.resources])
    list.forEach((u) => hostnames.addUrl(u));
  hostnames.addFromHeaders(response.headers);
  certificate?.subjectAltNames.forEach((name) => hostnames.add(name));

  const contentLanguage = (response.headers['content-language'] ?? []).flatMap((value) => value.split(','));

  return {
    input: withParsedHtml(
      {
        url: finalUrl,
        status: response.status,
        headers: response.headers,
        cookies: await cookiesOf(client, finalUrl, response.setCookies),
        html: decoded.text,
        scriptSrc: facts.scriptSrc,
        scripts,
        css,
        robots: siteFacts.robots,
        dns: siteFacts.dns,
        certIssuer: certificate?.issuer || undefined,
      },
      parsed,
    ),
    requestedUrl: url,
    redirects: response.redirects,
    contentType: contentType ?? '',
    charset: decoded.charset,
    truncated: response.truncated,
    languages: normaliseLanguages([facts.htmlLang ?? '', ...contentLanguage, ...facts.metaLanguages]),
    links: facts.links,
    hostnames: hostnames.values(),
    certificate,
    ...(remoteAddress ? { remoteAddress } : {}),
    siteFacts,
  };
}

/** A 304 answer: the page as its last download left it, with this request's headers and cookies. */
async function notModifiedPage(
  client: HttpClient,
  url: string,
  response: HttpResponse,
  previous: RememberedPage,
  options: FetchPageOptions,
): Promise<FetchedPage> {
  const finalUrl = response.url;
  const siteFacts = options.siteFacts ?? (await fetchSiteFacts(client, finalUrl, options));
  const certificate = client.certificateOf(finalUrl);
  const remoteAddress = client.remoteAddressOf(finalUrl);
  return {
    input: {
      url: finalUrl,
      status: response.status,
      headers: response.headers,
      cookies: await cookiesOf(client, finalUrl, response.setCookies),
      html: '',
      scriptSrc: [],
      scripts: [],
      css: [],
      robots: siteFacts.robots,
      dns: siteFacts.dns,
      certIssuer: certificate?.issuer || undefined,
    },
    requestedUrl: url,
    redirects: response.redirects,
    contentType: '',
    charset: '',
    truncated: false,
    languages: previous.languages,
    links: previous.links,
    hostnames: previous.hostnames,
    certificate,
    ...(remoteAddress ? { remoteAddress } : {}),
    siteFacts,
    notModified: previous,
  };
}

/**
 * robots.txt and DNS records of the page's site, fetched in parallel; robots.txt conditionally
 * when the page memory holds its last download.
 */
export async function fetchSiteFacts(
  client: HttpClient,
  pageUrl: string,
  options: Pick<FetchPageOptions, 'dnsServers' | 'dnsTimeoutMs' | 'signal' | 'pageMemory'>,
): Promise<SiteFacts> {
  // A memory that fails only costs the conditional request: the file is downloaded.
  const recallRobots = options.pageMemory?.recallRobots?.bind(options.pageMemory);
  const previous = recallRobots && (await recallRobots(robotsUrlOf(pageUrl)).catch(() => undefined));
  const [robots, dns] = await Promise.all([
    fetchRobotsTxt(client, pageUrl, options.signal, previous),
    resolveDnsFacts(new URL(pageUrl).hostname, {
      servers: options.dnsServers,
      timeoutMs: options.dnsTimeoutMs,
    }),
  ]);
  return {
    robots: robots.body,
    ...(robots.unreachable ? { robotsUnreachable: true } : {}),
    ...(robots.validators ? { robotsValidators: robots.validators } : {}),
    dns,
  };
}

/**
 * Cookies the site set, name to values: those of the crawl's jar that apply to the page (earlier
 * pages' included), plus every Set-Cookie of this fetch, including ones the jar would refuse (a
 * Secure cookie over http still names the software that set it).
 */
async function cookiesOf(
  client: HttpClient,
  url: string,
  setCookies: string[],
): Promise<Record<string, string[]>> {
  const cookies: Record<string, string[]> = {};
  const add = (name: string, value: string): void => {
    const values = (cookies[name] ??= []);
    if (!values.includes(value)) values.push(value);
  };
  for (const cookie of await client.cookieJar.getCookies(url)) add(cookie.key, cookie.value);
  for (const header of setCookies) {
    const cookie = Cookie.parse(header, { loose: true });
    if (cookie) add(cookie.key, cookie.value);
  }
  return cookies;
}
