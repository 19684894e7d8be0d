import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DetectionInput } from '../../src/detection';

/**
 * The corpus of pages produced by real software (test/corpus/sites/<id>/): what the crawler saw of
 * each site, captured by bench/corpus/capture.ts, and a truth file written by whoever installed it.
 */
export const CORPUS_ROOT = join(__dirname, '..', '..', '..', 'test', 'corpus', 'sites');

/** site.json: where the pages came from and how they were produced. */
export interface CapturedSite {
  id: string;
  /** The software that produced the pages, e.g. "nginx" or "WordPress". */
  product: string;
  productVersion: string;
  /** Where it came from: "Debian bookworm package nginx 1.22.1-9", "npm create-vite@6.1.0 (react-ts)". */
  source: string;
  /** Every step that produced and served the pages, as commands or short sentences. */
  producedBy: string[];
  capturedAt: string;
  startUrl: string;
  pages: { url: string; depth: number; file: string }[];
}

/** truth.json: what a correct detector reports for this site. */
export interface CorpusTruth {
  /** Technologies installed and evidenced in what the crawler fetched (names as in the fingerprints). */
  evidenced: { name: string; version?: string }[];
  /** Installed, but nothing in the fetched pages shows it (not counted against recall). */
  notVisible: string[];
  /** Installed and visible only to a browser (js/xhr/live DOM): found only with rendering on. */
  browserOnly: { name: string; version?: string }[];
  /** Names the raw upstream patterns report here that are not installed, each with why. */
  falsePositives: { name: string; why: string }[];
}

export interface CorpusSite {
  site: CapturedSite;
  truth: CorpusTruth;
  inputs: DetectionInput[];
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Each page as the engine takes it: page-N.json holds the input without its html, page-N.html the html. */
export function readCapturedPage(dir: string, file: string): DetectionInput {
  const input = readJson<Omit<DetectionInput, 'html'>>(join(dir, `${file}.json`));
  return { ...input, html: readFileSync(join(dir, `${file}.html`), 'utf8') };
}

export function readCorpus(root: string = CORPUS_ROOT): CorpusSite[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((id) => existsSync(join(root, id, 'site.json')))
    .sort()
    .map((id) => {
      const dir = join(root, id);
      const site = readJson<CapturedSite>(join(dir, 'site.json'));
      const truth = readJson<CorpusTruth>(join(dir, 'truth.json'));
      return { site, truth, inputs: site.pages.map((page) => readCapturedPage(dir, page.file)) };
    });
}
