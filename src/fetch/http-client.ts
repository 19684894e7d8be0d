import type { IncomingHttpHeaders } from 'node:http';
import { CookieJar } from 'tough-cookie';
import { Agent, request } from 'undici';
import { ACCEPT_ENCODING, readBody, UnsupportedEncodingError } from './body-reader';
import { FetchError } from './fetch-error';
import { createGuardedAgent, isTargetRefusal } from './guarded-agent';
import type { HostSlots } from './host-slots';
import type { HostPacer } from './host-pacing';
import { HostLookup, parseOutboundUrl } from './private-address-guard';
import { certificateFacts, CertificateFacts } from './tls-certificate';

export interface HttpClientOptions {
  /** User-Agent header (FETCH_USER_AGENT); robots.txt groups are matched against it too. */
  userAgent?: string;
  /** Budget of one request, redirects and body included (FETCH_TIMEOUT_MS). */
  timeoutMs?: number;
  /** TCP + TLS handshake timeout. */
  connectTimeoutMs?: number;
  /** Redirects followed before giving up (FETCH_MAX_REDIRECTS). */
  maxRedirects?: number;
  /** Default body cap in bytes, after decompression (FETCH_MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets?: boolean;
  /** ALLOWED_PRIVATE_RANGES: private ranges allowed while the others stay refused. */
  allowedPrivateRanges?: readonly string[];
  /** Name resolution for connections (tests map names to loopback); the system resolver by default. */
  lookup?: HostLookup;
  /** Verify TLS certificates; off by default since a broken certificate does not stop an analysis. */
  rejectUnauthorized?: boolean;
  /** Sockets per origin (CRAWL_CONCURRENCY_PER_HOST for a crawl); unbounded when absent. */
  connectionsPerHost?: number;
  /** Requests in flight per host shared with other clients (HOST_CONCURRENCY); unbounded when absent. */
  hostSlots?: HostSlots;
  /** Requests per second per host shared with other clients (HOST_REQUESTS_PER_SECOND); unbounded when absent. */
  hostPacer?: HostPacer;
}

export const HTTP_CLIENT_DEFAULTS = {
  userAgent: 'Mozilla/5.0 (compatible; TechIntelBot/1.0)',
  timeoutMs: 20_000,
  connectTimeoutMs: 10_000,
  maxRedirects: 5,
  maxBodyBytes: 5 * 1024 * 1024,
} as const;

/** One followed redirect. */
export interface RedirectHop {
  url: string;
  status: number;
  /** Absolute target of the Location header. */
  location: string;
}

export interface HttpResponse {
  /** The URL asked for. */
  requestedUrl: string;
  /** The URL of the final response, after redirects. */
  url: string;
  status: number;
  /** Final response headers, names lowercased, every value kept. */
  headers: Record<string, string[]>;
  redirects: RedirectHop[];
  /** Raw Set-Cookie values of every hop, in order. */
  setCookies: string[];
  /** Decompressed body; empty when the status was not 2xx or acceptBody refused it. */
  body: Buffer;
  /** The body was cut at the cap. */
  truncated: boolean;
  /** False when the body was not read (non-2xx status, or acceptBody said no). */
  bodyRead: boolean;
}

export interface GetOptions {
  /** Body cap for this request; the client's default otherwise. */
  maxBytes?: number;
  accept?: string;
  /** Decides from the final Content-Type whether the body is worth downloading. */
  acceptBody?: (contentType: string | undefined) => boolean;
  /** Aborts the request (a crawl's overall deadline). */
  signal?: AbortSignal;
  /** Validators of a copy already held: sent as If-None-Match / If-Modified-Since (a 304 is returned). */
  conditional?: { etag?: string; lastModified?: string };
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * The one way the service fetches a target site: GET only, through the guarded agent, following
 * redirects by hand (each hop is recorded, its cookies kept, and its target checked by the guard
 * when connected), with one time budget per request and a body cap. One client per crawl: it owns
 * the crawl's cookie jar and the connection pool, and remembers each TLS origin's certificate.
 * Throws FetchError: NO_RESPONSE when nothing usable came back, RESPONSE_NOT_OK for redirect
 * failures. A non-2xx final status is returned, not thrown: callers decide what it means.
 */
export class HttpClient {
  readonly cookieJar = new CookieJar();
  readonly userAgent: string;
  private readonly agent: Agent;
  private readonly certificates = new Map<string, CertificateFacts>();
  private readonly remoteAddresses = new Map<string, string>();
  private readonly timeoutMs: number;
  private readonly maxRedirects: number;
  private readonly maxBodyBytes: number;
  private readonly hostSlots?: HostSlots;
  private readonly hostPacer?: HostPacer;

  constructor(options: HttpClientOptions = {}) {
    this.userAgent = options.userAgent ?? HTTP_CLIENT_DEFAULTS.userAgent;
    this.timeoutMs = options.timeoutMs ?? HTTP_CLIENT_DEFAULTS.timeoutMs;
    this.maxRedirects = options.maxRedirects ?? HTTP_CLIENT_DEFAULTS.maxRedirects;
    this.maxBodyBytes = options.maxBodyBytes ?? HTTP_CLIENT_DEFAULTS.maxBodyBytes;
    this.hostSlots = options.hostSlots;
    this.hostPacer = options.hostPacer;
    this.agent = createGuardedAgent({
      allowPrivateTargets: options.allowPrivateTargets,
      allowedPrivateRanges: options.allowedPrivateRanges,
      lookup: options.lookup,
      connectTimeoutMs: options.connectTimeoutMs ?? HTTP_CLIENT_DEFAULTS.connectTimeoutMs,
      responseTimeoutMs: this.timeoutMs,
      connectionsPerOrigin: options.connectionsPerHost,
      rejectUnauthorized: options.rejectUnauthorized ?? false,
      onSecureConnect: (origin, socket) => {
        const facts = certificateFacts(socket);
        if (facts) this.certificates.set(origin, facts);
      },
      onConnect: (origin, socket) => {
        if (socket.remoteAddress) this.remoteAddresses.set(origin, socket.remoteAddress);
      },
    });
  }

  /** The certificate seen on the connection to this URL's origin, for https URLs fetched before. */
  certificateOf(url: string): CertificateFacts | undefined {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:') return undefined;
    return this.certificates.get(originKey(parsed));
  }

  /** The IP address the last connection to this URL's origin reached (GeoIP looks it up). */
  remoteAddressOf(url: string): string | undefined {
    return this.remoteAddresses.get(originKey(new URL(url)));
  }

  async get(url: string, options: GetOptions = {}): Promise<HttpResponse> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    try {
      return await this.follow(url, options, signal);
    } catch (error) {
      if (error instanceof FetchError) throw error;
      throw toFetchError(error, timeout.aborted ? `No response within ${this.timeoutMs} ms` : undefined);
    }
  }

  /** Closes the pooled connections; the client cannot be used afterwards. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async follow(
    requestedUrl: string,
    options: GetOptions,
    signal: AbortSignal,
  ): Promise<HttpResponse> {
    const redirects: RedirectHop[] = [];
    const setCookies: string[] = [];
    const visited = new Set<string>();
    let current = parseOutboundUrl(requestedUrl).href;

    for (;;) {
      visited.add(current);
      // One slot of the host (name and port) for the hop, body included (released on every way out of the hop).
      const release = await this.hostSlots?.acquire(new URL(current).host, signal);
      try {
        // Paced while holding the slot: the moment reserved is the moment the request is sent, so
        // requests waiting for a slot cannot bunch up once they get one.
        await this.hostPacer?.wait(new URL(current).host, signal);
        const cookie = await this.cookieJar.getCookieString(current);
        const response = await request(current, {
          dispatcher: this.agent,
          method: 'GET',
          signal,
          headers: {
            'user-agent': this.userAgent,
            accept: options.accept ?? '*/*',
            'accept-encoding': ACCEPT_ENCODING,
            'accept-language': 'en-US,en;q=0.8',
            ...(cookie ? { cookie } : {}),
            ...(options.conditional?.etag ? { 'if-none-match': options.conditional.etag } : {}),
            ...(options.conditional?.lastModified
              ? { 'if-modified-since': options.conditional.lastModified }
              : {}),
          },
        });
        const headers = normaliseHeaders(response.headers);
        for (const setCookie of headers['set-cookie'] ?? []) {
          setCookies.push(setCookie);
          await this.cookieJar.setCookie(setCookie, current, { ignoreError: true });
        }

        const location = headers.location?.[0];
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          await response.body.dump();
          const next = resolveRedirect(location, current);
          redirects.push({ url: current, status: response.statusCode, location: next });
          if (visited.has(next)) {
            throw new FetchError('RESPONSE_NOT_OK', `Redirect loop at ${next}`, response.statusCode);
          }
          if (redirects.length > this.maxRedirects) {
            throw new FetchError(
              'RESPONSE_NOT_OK',
              `More than ${this.maxRedirects} redirects`,
              response.statusCode,
            );
          }
          current = next;
          continue;
        }

        const contentType = headers['content-type']?.[0];
        const wanted =
          response.statusCode >= 200 &&
          response.statusCode < 300 &&
          (options.acceptBody?.(contentType) ?? true);
        const answered = {
          requestedUrl,
          url: current,
          status: response.statusCode,
          headers,
          redirects,
          setCookies,
        };
        if (!wanted) {
          // Destroying an undici body reports "aborted" as an error event: expected here, so absorbed.
          response.body.on('error', () => undefined).destroy();
          return {
            ...answered,
            body: Buffer.alloc(0),
            truncated: false,
            bodyRead: false,
          };
        }
        const body = await readBody(
          response.body,
          headers['content-encoding']?.join(','),
          options.maxBytes ?? this.maxBodyBytes,
        );
        return {
          ...answered,
          body: body.bytes,
          truncated: body.truncated,
          bodyRead: true,
        };
      } finally {
        await release?.();
      }
    }
  }
}

/** "hostname:port" as the guarded agent reports connections (brackets of IPv6 literals dropped). */
function originKey(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.replace(/^\[|\]$/g, '')}:${port}`;
}

function resolveRedirect(location: string, base: string): string {
  let target: URL;
  try {
    target = new URL(location, base);
  } catch {
    throw new FetchError('RESPONSE_NOT_OK', `Redirect to an invalid URL: ${location.slice(0, 200)}`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new FetchError('RESPONSE_NOT_OK', `Redirect to an unsupported scheme: ${target.protocol}`);
  }
  if (target.username || target.password) {
    throw new FetchError('RESPONSE_NOT_OK', 'Redirect to a URL with credentials');
  }
  target.hash = '';
  return target.href;
}

export function normaliseHeaders(headers: IncomingHttpHeaders): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    result[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  }
  return result;
}

const NO_RESPONSE_CODES: Record<string, string> = {
  ENOTFOUND: 'The host name does not resolve',
  EAI_AGAIN: 'The host name could not be resolved',
  // From the DNS_SERVERS resolver (c-ares): the server was asked but gave no usable answer.
  ETIMEOUT: 'The host name could not be resolved: the DNS server did not answer in time',
  ESERVFAIL: 'The host name could not be resolved: the DNS server failed',
  EREFUSED: 'The host name could not be resolved: the DNS server refused the question',
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset by the server',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'Connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'No response headers in time',
  UND_ERR_BODY_TIMEOUT: 'The response body stalled',
  UND_ERR_SOCKET: 'The connection failed',
};

/** Every failure to get a usable answer is NO_RESPONSE for the API; the message says which. */
function toFetchError(error: unknown, timeoutMessage: string | undefined): FetchError {
  if (timeoutMessage) return new FetchError('NO_RESPONSE', timeoutMessage);
  if (isTargetRefusal(error)) {
    return new FetchError('NO_RESPONSE', refusalMessage(error));
  }
  if (error instanceof UnsupportedEncodingError) return new FetchError('NO_RESPONSE', error.message);
  const code = codeOf(error);
  if (code && NO_RESPONSE_CODES[code]) return new FetchError('NO_RESPONSE', NO_RESPONSE_CODES[code]);
  if (code?.startsWith('Z_') || code?.startsWith('ERR__')) {
    return new FetchError('NO_RESPONSE', 'The response body could not be decompressed');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new FetchError('NO_RESPONSE', message || 'The request failed');
}

function codeOf(error: unknown): string | undefined {
  for (let current = error as { code?: string; cause?: unknown } | undefined; current;) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause as typeof current;
  }
  return undefined;
}

function refusalMessage(error: unknown): string {
  for (let current = error as { code?: string; message?: string; cause?: unknown } | undefined; current;) {
    if (current.code === 'ERR_TARGET_FORBIDDEN' && current.message) return current.message;
    current = current.cause as typeof current;
  }
  return 'Refused target';
}
