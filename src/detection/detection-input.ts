import type { ParsedHtml } from '../html';

/**
 * What was fetched from one page of a site: the only input of the detection engine.
 * The fetcher (src/fetch) builds it; the engine never does I/O. Every field but url and html is
 * optional so a caller can detect from whatever it has.
 */
export interface DetectionInput {
  /** Final URL of the page, after redirects. */
  url: string;
  /** HTTP status of the final response. */
  status?: number;
  /** Response headers, names lowercased, every value kept (e.g. several set-cookie). */
  headers?: Record<string, string[]>;
  /** Cookies set by the site: name (as sent) to values. */
  cookies?: Record<string, string[]>;
  /** The decoded HTML document. */
  html: string;
  /**
   * The page's one reading (src/html), when whoever fetched it has read it: used when read from this
   * very `html`, else the engine reads the html itself. Attach it with `withParsedHtml` (it is not
   * enumerable, so copies and JSON of the input leave it out).
   */
  readonly parsed?: ParsedHtml;
  /** Script URLs; when absent the engine takes them from the <script src> of html. */
  scriptSrc?: string[];
  /** Bodies of scripts the fetcher downloaded (same-site, bounded count and size). */
  scripts?: string[];
  /** Bodies of stylesheets the fetcher downloaded; inline <style> is taken from html. */
  css?: string[];
  /** robots.txt body, when fetched. */
  robots?: string;
  /** DNS records by type (TXT, MX, NS, SOA, CNAME), each as text. */
  dns?: Record<string, string[]>;
  /** Issuer organisation/common name of the TLS certificate of an https site. */
  certIssuer?: string;
  /** What a browser saw of the page, when it was rendered (js, xhr and live-DOM patterns need it). */
  rendered?: RenderedInput;
}

/** The rendered page: the browser fetcher (src/fetch/browser) produces it. */
export interface RenderedInput {
  /** The live DOM, serialised after the page settled. */
  html: string;
  /** Values of the js chains read (strings, numbers, or booleans for other values); absent chains left out. */
  js: Record<string, string | number | boolean>;
  /** Live DOM properties read, by selector then property name. */
  domProperties?: Record<string, Record<string, string | number | boolean>>;
  /** XHR/fetch requests as host + path + query (`api.example.com/v1/x?y`). */
  xhr: string[];
}

/** The input with the page's reading attached, not enumerable (never serialised nor spread along). */
export function withParsedHtml<T extends DetectionInput>(input: T, parsed: ParsedHtml): T {
  Object.defineProperty(input, 'parsed', { value: parsed, enumerable: false, configurable: true });
  return input;
}
