import { getDomain, getDomainWithoutSuffix, getPublicSuffix } from 'tldts';
import type { EnrichmentInput } from './enrichment-input';
import { LIMITS } from './limits';
import { parsePageDocument, type PageDocument } from './page-document';
import { pageKindOf, SEGMENTED_KINDS, type PageKind } from './page-kind';
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
  let host = '';
  try {
    host = new URL(input.siteUrl).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    // An unparsable site URL leaves the name-derived fields absent.
  }
  const homePath = (url: string): boolean => {
    try {
      return new URL(url).pathname === '/';
    } catch {
      return false;
    }
  };
  const pages: ReadPage[] = input.pages.slice(0, LIMITS.pages).map((page) => {
    const kind = pageKindOf(page.url);
    // Text segments cost a string and an object each, and only some pages' are read.
    const withSegments = kind !== undefined && SEGMENTED_KINDS.includes(kind);
    return {
      doc: parsePageDocument(page.url, page.html, page.parsed, withSegments),
      kind,
      headers: page.headers,
      isHome: false,
    };
  });
  const home = pages.find((page) => homePath(page.doc.url)) ?? pages[0];
  if (home) home.isHome = true;
  const nodes: SchemaNode[] = [];
  for (const page of pages) {
    for (const node of schemaNodesOf(page.doc)) {
      if (nodes.length >= LIMITS.structuredNodes * 4) break;
      nodes.push(node);
    }
  }
  return {
    input,
    host,
    domain: getDomain(host) ?? undefined,
    domainLabel: getDomainWithoutSuffix(host) ?? undefined,
    suffix: getPublicSuffix(host) ?? undefined,
    pages,
    home,
    nodes,
  };
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
