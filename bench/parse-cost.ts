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
 *
 * The figure is a worker's steady cost per page, so the timed rounds come after warm-up passes over
 * the pages: during the first passes V8 is still compiling the pipeline's functions (and compiling
 * again those a new object shape deoptimizes), on a background thread whose CPU process.cpuUsage
 * counts and bills to whatever stage runs meanwhile. A worker pays that once per process; a
 * measurement of its first passes pays it on every page. The same measurement over passes 2-4 of
 * the warm-up is printed beside it ("cold"), so that both are seen.
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
  /** Untimed passes over the pages before the timed rounds (all stages, as timed). */
  warmupRounds: number;
  /**
   * The ratio measured the same way over warm-up passes 2-4 (null with fewer than 4 warm-up passes):
   * what the first pages of a fresh process cost, JIT compilation included.
   */
  coldRatio: number | null;
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
  /** Passes over the pages before the timed rounds (default DEFAULT_WARMUP_ROUNDS). */
  warmupRounds?: number;
  /** A compiled engine to reuse (else the default fingerprints are loaded, untimed). */
  engine?: DetectionEngine;
}

/**
 * Warm-up passes by default: as many as profiles of this bench showed V8's optimizing compiler
 * still taking a share of a pass's CPU (functions compiled late, and again after a
 * deoptimization); docs/performance.md has the profile.
 */
export const DEFAULT_WARMUP_ROUNDS = 12;

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
  const warmupRounds = Math.max(1, options.warmupRounds ?? DEFAULT_WARMUP_ROUNDS);
  const engine = options.engine ?? new DetectionEngine(loadFingerprints());
  const prepared = pages.map((page) => ({
    ...page,
    headers: headerLists(page.headers),
    parsed: undefined as ParsedHtml | undefined,
  }));
  const parsedOf = (page: (typeof prepared)[number]): ParsedHtml =>
    (page.parsed ??= parsePageHtml(page.html));
  const zero = () => ({ tokenizer: 0, parse: 0, separate: 0, detect: 0, enrich: 0 });
  const totals = zero();
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
  const cold = zero();
  // The warm-up passes run every stage as the timed rounds do; passes 2-4 are timed apart ("cold").
  for (let round = -warmupRounds; round < rounds; round++) {
    const coldPass = round >= -warmupRounds + 1 && round <= -warmupRounds + 3;
    const into = round >= 0 ? totals : coldPass ? cold : null;
    for (const page of prepared) {
      // The reading detection and enrichment get is made untimed when the rotation puts them
      // before the parse stage, and dropped after the page: readings of all pages kept at once
      // would grow the heap and bill its garbage collection to whatever stage runs.
      page.parsed = parsePageHtml(page.html);
      for (let k = 0; k < stages.length; k++) {
        const [name, run] = stages[(k + stages.length + (round % stages.length)) % stages.length];
        const used = cpu(() => run(page));
        if (into !== null) into[name] += used;
      }
      page.parsed = undefined;
    }
  }
  const per = (total: number): number => total / rounds / Math.max(1, prepared.length);
  const tokenizerMs = per(totals.tokenizer);
  const parseMs = per(totals.parse);
  const detectMs = per(totals.detect);
  const enrichMs = per(totals.enrich);
  const coldRatio =
    warmupRounds >= 4 && cold.tokenizer > 0
      ? (cold.parse + cold.detect + cold.enrich) / cold.tokenizer
      : null;
  return {
    pages: prepared.length,
    htmlCharsPerPage: Math.round(
      prepared.reduce((sum, p) => sum + p.html.length, 0) / Math.max(1, prepared.length),
    ),
    rounds,
    warmupRounds,
    coldRatio,
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
    `pages: ${cost.pages} (${cost.htmlCharsPerPage} HTML chars/page), ${cost.rounds} rounds after ${cost.warmupRounds} warm-up passes`,
    `CPU ms/page: bare htmlparser2 tokenizer ${f(cost.tokenizerMs)}, parse ${f(cost.parseMs)}, detect ${f(cost.detectMs)}, enrich ${f(cost.enrichMs)}`,
    `(the three readers parsing separately, as before the single parse: ${f(cost.separateParsesMs)} ms/page)`,
    ...(cost.coldRatio === null
      ? []
      : [
          `(cold, over warm-up passes 2-4, while V8 still compiles the pipeline: ratio ${cost.coldRatio.toFixed(2)})`,
        ]),
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
    warmupRounds: Number(process.env.PARSE_BENCH_WARMUP ?? DEFAULT_WARMUP_ROUNDS),
  });
  for (const line of formatParseCost(cost)) console.log(line);
  console.log(`load average at end: ${loadAverage()}`);
}
