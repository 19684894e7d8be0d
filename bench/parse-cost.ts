/**
 * CPU cost of reading a page's HTML, per stage, against one bare htmlparser2 tokenizer pass over the
 * same pages in the same run (issue 35 §2: parse + detect + enrich ≤ 3 × that pass).
 *
 * `measureParseCost(pages)` is the reusable part (bench:index-scale prints it beside its figures);
 * run as a script (`npm run bench:parse`) it measures the corpus pages (test/corpus/sites and
 * test/fixtures/pages) and prints the figures with the load average.
 *
 * Stages are measured page by page, interleaved (each page goes through every stage in turn, the
 * order rotating per round) so that load from other processes hits them alike; CPU time
 * (process.cpuUsage: user + system) is what load distorts least.
 */
import { loadavg } from 'node:os';
import { Tokenizer } from 'htmlparser2';

import { DetectionEngine, loadFingerprints, withParsedHtml } from '../src/detection';
import { enrichSiteWithCountry } from '../src/enrichment';
import { parsePageDocument } from '../src/enrichment/page-document';
import { extractHtmlFacts, htmlFactsOf } from '../src/fetch/html-extractor';
import { parseHtml, parsePageHtml, type ParsedHtml } from '../src/html';
import { loadParsePages, type ParsePage } from './parse/corpus-pages';

export type { ParsePage } from './parse/corpus-pages';

export interface ParseCost {
  pages: number;
  /** Total HTML characters per page, on average. */
  htmlCharsPerPage: number;
  rounds: number;
  /** CPU ms per page of one bare htmlparser2 Tokenizer pass (no-op callbacks, entities decoded). */
  tokenizerMs: number;
  /** CPU ms per page of our one parse (src/html) and the fetcher's extraction from it. */
  parseMs: number;
  /** For comparison: CPU ms per page of the three readers each parsing the page (as before). */
  separateParsesMs: number;
  /** CPU ms per page of the detection on that document (fingerprints compiled beforehand). */
  detectMs: number;
  /** CPU ms per page of the enrichment of a one-page site on that document. */
  enrichMs: number;
  /** (parse + detect + enrich) / tokenizer. */
  ratio: number;
}

export interface ParseCostOptions {
  /** Timed rounds over the pages (default 3). */
  rounds?: number;
  /** A compiled engine to reuse (else the default fingerprints are loaded, untimed). */
  engine?: DetectionEngine;
}

const NOOP_TOKENIZER_CALLBACKS = {
  onattribdata() {},
  onattribentity() {},
  onattribend() {},
  onattribname() {},
  oncdata() {},
  onclosetag() {},
  oncomment() {},
  ondeclaration() {},
  onend() {},
  onopentagend() {},
  onopentagname() {},
  onprocessinginstruction() {},
  onselfclosingtag() {},
  ontext() {},
  ontextentity() {},
};

/** One bare htmlparser2 tokenizer pass (no-op callbacks, entities decoded): the ratio's unit. */
export function bareTokenize(html: string): void {
  const tokenizer = new Tokenizer({ decodeEntities: true }, NOOP_TOKENIZER_CALLBACKS);
  tokenizer.write(html);
  tokenizer.end();
}

export function headerLists(headers: ParsePage['headers']): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    out[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  return out;
}

/** CPU ms of one call. */
export function cpu(run: () => unknown): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The page is parsed once (the fetcher's stage: parsePageHtml + its links and resources), then
 * detection and enrichment read that parse, as the fetcher hands it along.
 */
export function measureParseCost(pages: readonly ParsePage[], options: ParseCostOptions = {}): ParseCost {
  const rounds = Math.max(1, options.rounds ?? 3);
  const engine = options.engine ?? new DetectionEngine(loadFingerprints());
  const prepared = pages.map((page) => ({
    ...page,
    headers: headerLists(page.headers),
    parsed: undefined as ParsedHtml | undefined,
  }));
  const parsedOf = (page: (typeof prepared)[number]): ParsedHtml =>
    (page.parsed ??= parsePageHtml(page.html));
  const totals = { tokenizer: 0, parse: 0, separate: 0, detect: 0, enrich: 0 };
  const stages: [keyof typeof totals, (page: (typeof prepared)[number]) => unknown][] = [
    ['tokenizer', (page) => bareTokenize(page.html)],
    [
      'parse',
      (page) => {
        page.parsed = parsePageHtml(page.html);
        htmlFactsOf(page.parsed, page.url);
      },
    ],
    [
      'separate',
      (page) => {
        extractHtmlFacts(page.html, page.url);
        parsePageDocument(page.url, page.html);
        parseHtml(page.html);
      },
    ],
    [
      'detect',
      (page) =>
        engine.analyze(
          withParsedHtml({ url: page.url, html: page.html, headers: page.headers }, parsedOf(page)),
        ),
    ],
    [
      'enrich',
      (page) =>
        enrichSiteWithCountry({
          siteUrl: page.url,
          pages: [{ url: page.url, html: page.html, headers: page.headers, parsed: parsedOf(page) }],
          technologies: [],
        }),
    ],
  ];
  // Warm-up: one untimed pass of every stage (JIT, lazily built indexes and regexes).
  for (const page of prepared) {
    for (const [, run] of stages) run(page);
    page.parsed = undefined;
  }
  for (let round = 0; round < rounds; round++) {
    for (const page of prepared) {
      // The reading detection and enrichment get is made untimed when the rotation puts them
      // before the parse stage, and dropped after the page: readings of all pages kept at once
      // would grow the heap and bill its garbage collection to whatever stage runs.
      page.parsed = parsePageHtml(page.html);
      for (let k = 0; k < stages.length; k++) {
        const [name, run] = stages[(k + round) % stages.length];
        totals[name] += cpu(() => run(page));
      }
      page.parsed = undefined;
    }
  }
  const per = (total: number): number => total / rounds / Math.max(1, prepared.length);
  const tokenizerMs = per(totals.tokenizer);
  const parseMs = per(totals.parse);
  const detectMs = per(totals.detect);
  const enrichMs = per(totals.enrich);
  return {
    pages: prepared.length,
    htmlCharsPerPage: Math.round(
      prepared.reduce((sum, p) => sum + p.html.length, 0) / Math.max(1, prepared.length),
    ),
    rounds,
    tokenizerMs,
    parseMs,
    separateParsesMs: per(totals.separate),
    detectMs,
    enrichMs,
    ratio: (parseMs + detectMs + enrichMs) / tokenizerMs,
  };
}

/** The figures as printed lines (bench:parse and bench:index-scale print them alike). */
export function formatParseCost(cost: ParseCost): string[] {
  const f = (n: number): string => n.toFixed(3);
  return [
    `pages: ${cost.pages} (${cost.htmlCharsPerPage} HTML chars/page), ${cost.rounds} rounds`,
    `CPU ms/page: bare htmlparser2 tokenizer ${f(cost.tokenizerMs)}, parse ${f(cost.parseMs)}, detect ${f(cost.detectMs)}, enrich ${f(cost.enrichMs)}`,
    `(the three readers parsing separately, as before the single parse: ${f(cost.separateParsesMs)} ms/page)`,
    `parse cost: (parse + detect + enrich) / tokenizer = ${cost.ratio.toFixed(2)}`,
  ];
}

function loadAverage(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

if (require.main === module) {
  console.log(`load average at start: ${loadAverage()}`);
  const cost = measureParseCost(loadParsePages(), {
    rounds: Number(process.env.PARSE_BENCH_ROUNDS ?? 3),
  });
  for (const line of formatParseCost(cost)) console.log(line);
  console.log(`load average at end: ${loadAverage()}`);
}
