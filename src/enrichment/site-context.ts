import { getDomain, parse as parseHost } from 'tldts';
import type { EnrichmentInput } from './enrichment-input';
import { LIMITS } from './limits';
import { parsePageDocument, type PageDocument } from './page-document';
import { pageKindOfPath, SEGMENTED_KINDS, type PageKind } from './page-kind';
import { schemaNodesOf, type SchemaNode } from './structured-data';

export interface ReadPage {
  doc: PageDocument;
  kind?: PageKind;
  headers?: Record<string, string[]>;
  isHome: boolean;
}

/** What every extractor reads: the pages parsed once, their structured data, the site's names. */
export interface SiteContext {
  input: EnrichmentInput;
  /** Host without "www.", lowercase. */
  host: string;
  /** Registrable domain (example.co.uk), when the host has one. */
  domain?: string;
  /** The registrable domain without its suffix ("example" of example.co.uk). */
  domainLabel?: string;
  /** Public suffix ("co.uk"). */
  suffix?: string;
  pages: ReadPage[];
  home?: ReadPage;
  nodes: SchemaNode[];
}

export function readSite(input: EnrichmentInput): SiteContext {
  const siteUrl = urlOf(input.siteUrl);
  // An unparsable site URL leaves the name-derived fields absent.
  const host = siteUrl ? siteUrl.hostname.toLowerCase().replace(/^www\./, '') : '';
  const homePaths: boolean[] = [];
  const pages: ReadPage[] = input.pages.slice(0, LIMITS.pages).map((page) => {
    // One parse of the page's URL says its kind and whether it is a home page (the site's URL, which
    // is often the home page's, is parsed already).
    const url = page.url === input.siteUrl ? siteUrl : urlOf(page.url);
    const kind = url ? pageKindOfPath(url.pathname) : undefined;
    homePaths.push(url !== undefined && url.pathname === '/');
    // Text segments cost a string and an object each, and only some pages' are read.
    const withSegments = kind !== undefined && SEGMENTED_KINDS.includes(kind);
    return {
      doc: parsePageDocument(page.url, page.html, page.parsed, withSegments),
      kind,
      headers: page.headers,
      isHome: false,
    };
  });
  const homeAt = homePaths.indexOf(true);
  const home = homeAt >= 0 ? pages[homeAt] : pages[0];
  if (home) home.isHome = true;
  const nodes: SchemaNode[] = [];
  for (const page of pages) {
    for (const node of schemaNodesOf(page.doc)) {
      if (nodes.length >= LIMITS.structuredNodes * 4) break;
      nodes.push(node);
    }
  }
  // One reading of the host gives its three names.
  const names = parseHost(host);
  return {
    input,
    host,
    domain: names.domain ?? undefined,
    domainLabel: names.domainWithoutSuffix ?? undefined,
    suffix: names.publicSuffix ?? undefined,
    pages,
    home,
    nodes,
  };
}

function urlOf(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Pages of the given kinds. */
export function pagesOfKind(context: SiteContext, ...kinds: PageKind[]): ReadPage[] {
  return context.pages.filter((page) => page.kind !== undefined && kinds.includes(page.kind));
}

/** Is the URL on the site itself (its host, www. or a subdomain of its registrable domain)? */
export function isOwnUrl(context: SiteContext, url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase().replace(/^www\./, '');
    return host === context.host || (context.domain !== undefined && getDomain(host) === context.domain);
  } catch {
    return false;
  }
}
