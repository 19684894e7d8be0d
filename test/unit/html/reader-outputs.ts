import { createHash } from 'node:crypto';

import { DetectionEngine, loadFingerprints, withParsedHtml } from '../../../src/detection';
import { parseHtml } from '../../../src/html';
import { parsePageDocument } from '../../../src/enrichment/page-document';
import { extractHtmlFacts, htmlFactsOf } from '../../../src/fetch/html-extractor';
import { parsePageHtml, type ParsedHtml } from '../../../src/html';

/** What the three readers give for one page, each part as a digest (the fixture stays small). */
export interface ReaderOutputs {
  facts: string;
  pageDocument: string;
  lightDocument: string;
  detection: string;
  /** A readable summary, so a mismatch can be located without re-running main's code. */
  summary: {
    links: number;
    resources: number;
    anchors: number;
    segments: number;
    elements: number;
    technologies: string[];
  };
}

const digest = (value: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(value, (_key, v: unknown) => (v instanceof Map ? [...v.entries()] : v)))
    .digest('hex')
    .slice(0, 24);

let engine: DetectionEngine | undefined;

export interface Readers {
  facts: (html: string, url: string) => unknown;
  pageDocument: (html: string, url: string) => { anchors: unknown[]; segments: unknown[] };
  lightDocument: (html: string) => { elements: unknown[] };
  detect: (
    engine: DetectionEngine,
    page: { url: string; html: string; headers?: Record<string, string[]> },
  ) => { technologies: { slug: string; version?: string }[] };
}

/** Each reader called on the HTML alone (each reads the page itself). */
export const separateReaders: Readers = {
  facts: (html, url) => extractHtmlFacts(html, url),
  pageDocument: (html, url) => parsePageDocument(url, html),
  lightDocument: (html) => parseHtml(html),
  detect: (e, page) => e.analyze(page),
};

export function readerOutputs(
  page: { url: string; html: string; headers?: Record<string, string[]> },
  readers: Readers,
): ReaderOutputs {
  engine ??= new DetectionEngine(loadFingerprints());
  const facts = readers.facts(page.html, page.url) as { links: unknown[]; resources: unknown[] };
  const pageDocument = readers.pageDocument(page.html, page.url);
  const lightDocument = readers.lightDocument(page.html);
  const detection = readers.detect(engine, page);
  return {
    facts: digest(facts),
    pageDocument: digest(pageDocument),
    lightDocument: digest(lightDocument),
    detection: digest(detection),
    summary: {
      links: facts.links.length,
      resources: facts.resources.length,
      anchors: pageDocument.anchors.length,
      segments: pageDocument.segments.length,
      elements: lightDocument.elements.length,
      technologies: detection.technologies.map((t) => `${t.slug}${t.version ? `@${t.version}` : ''}`),
    },
  };
}

/**
 * The readers on ONE reading of the page (as the fetcher hands it along): facts, page document and
 * detection all from the same ParsedHtml. The reading is memoised per html string.
 */
export function sharedReaders(): Readers {
  let last: ParsedHtml | undefined;
  const once = (html: string): ParsedHtml => {
    if (last?.html !== html) last = parsePageHtml(html);
    return last;
  };
  let parses = 0;
  const counted = (html: string): ParsedHtml => {
    if (last?.html !== html) parses++;
    return once(html);
  };
  const readers: Readers & { parses: () => number } = {
    facts: (html, url) => htmlFactsOf(counted(html), url),
    pageDocument: (html, url) => parsePageDocument(url, html, counted(html)),
    lightDocument: (html) => counted(html).light,
    detect: (e, page) => e.analyze(withParsedHtml({ ...page }, counted(page.html))),
    parses: () => parses,
  };
  return readers;
}
