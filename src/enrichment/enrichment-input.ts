import type { ParsedHtml } from '../html';

/**
 * What the enrichment reads: the pages an analysis fetched, the technologies it detected and the
 * facts of the connection. Plain data, so the library stays pure (no I/O): the caller resolves
 * GeoIP and the rank before calling, and passes a text-language detector in.
 */
export interface EnrichmentPage {
  /** Final URL of the page (after redirects). */
  url: string;
  /** The decoded HTML. */
  html: string;
  /** Response headers, names lowercased (Content-Language is read). */
  headers?: Record<string, string[]>;
  /** The page's one reading (src/html), when the fetcher made it: used when read from this `html`. */
  parsed?: ParsedHtml;
}

export interface EnrichmentTechnology {
  slug: string;
  name: string;
  categories: readonly { id: number; slug: string; name: string }[];
  /** The fingerprint's pricing tags (low, mid, high, poa, freemium, onetime, recurring, payg). */
  pricing?: readonly string[];
}

/** The TLS certificate of the site's https connection. */
export interface EnrichmentCertificate {
  /** Issuer organisation, else common name. */
  issuer: string;
  /** Negotiated protocol, e.g. "TLSv1.3"; '' when unknown. */
  protocol: string;
  /** Expiry, ISO 8601; '' when unknown. */
  validTo: string;
}

/** An IP address the site was reached on, with what GeoIP knows of it. */
export interface EnrichmentAddress {
  address: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  /** Region (subdivision) name or code, when the GeoIP database has regions. */
  region?: string;
}

export interface EnrichmentDns {
  /** TXT records of the registrable domain (SPF lives here). */
  txt: readonly string[];
  /** DMARC records of _dmarc.<domain>. */
  dmarc: readonly string[];
}

/** Detects the language of a text: an ISO 639-1 code, or undefined when not reliable. */
export type TextLanguageDetector = (text: string) => string | undefined;

export interface EnrichmentInput {
  /** The site's URL as it answered (the home page's final URL). */
  siteUrl: string;
  /** Pages fetched, the home page first when it was fetched. */
  pages: readonly EnrichmentPage[];
  technologies: readonly EnrichmentTechnology[];
  /** The certificate of the site's https connection (absent over http or when unknown). */
  certificate?: EnrichmentCertificate;
  /** Addresses connected to, the home page's first. */
  addresses?: readonly EnrichmentAddress[];
  /** DNS facts; absent when not asked (an IP-literal host). */
  dns?: EnrichmentDns;
  /** The site's traffic rank (1 = most visited) when the index has one. */
  trafficRank?: number;
  /** Fallback for pages that declare no language. */
  detectLanguage?: TextLanguageDetector;
}
