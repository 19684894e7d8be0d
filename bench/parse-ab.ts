/**
 * Two builds' parse, detect and enrich stages compared in one process (issue 35 §2).
 *
 * On this 2-core machine the same build's stages move by 20-40% between two runs a minute apart,
 * so a cut measured in separate runs is lost in the noise. Here both builds (this one and another's
 * dist, e.g. a git worktree of another commit, built) are loaded side by side and run page by page,
 * alternating, the order flipped every round: whatever the machine does meanwhile falls on both
 * alike. Printed: CPU ms per page of each stage for each build, and each build's ratio to one bare
 * htmlparser2 tokenizer pass measured in the same rounds.
 *
 *   PARSE_AB_OTHER    the other build's repository root (default: this one, an A/A run)
 *   PARSE_AB_ROUNDS   timed rounds over the pages (default 6)
 *   PARSE_AB_WARMUP   untimed passes of both builds over the pages first (default as bench:parse's:
 *                     V8 compiles during the first passes, and its CPU lands on whichever build runs)
 *
 *   npm run bench:parse:ab
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

import { bareTokenize, cpu, DEFAULT_WARMUP_ROUNDS, headerLists } from './parse-cost';
import { loadParsePages } from './parse/corpus-pages';

type Headers = Record<string, string[]>;
type Page = { url: string; html: string; headers: Headers };

interface Build {
  name: string;
  parse(page: Page): unknown;
  detect(page: Page, parsed: unknown): unknown;
  enrich(page: Page, parsed: unknown): unknown;
}

/** The stages of the build whose repository root is `root` (its dist/ built). */
function loadBuild(name: string, root: string): Build {
  const load = createRequire(join(root, 'package.json'));
  /* eslint-disable @typescript-eslint/no-explicit-any --
     another build's modules: the same API as this one's, but not this one's types */
  const detection: any = load(join(root, 'dist/src/detection'));
  const enrichment: any = load(join(root, 'dist/src/enrichment'));
  const extractor: any = load(join(root, 'dist/src/fetch/html-extractor'));
  const html: any = load(join(root, 'dist/src/html'));
  /* eslint-enable @typescript-eslint/no-explicit-any */
  const cwd = process.cwd();
  process.chdir(root); // the build's own fingerprints
  const engine = new detection.DetectionEngine(detection.loadFingerprints());
  process.chdir(cwd);
  return {
    name,
    parse(page) {
      const parsed = html.parsePageHtml(page.html);
      extractor.htmlFactsOf(parsed, page.url);
      return parsed;
    },
    detect: (page, parsed) =>
      engine.analyze(
        detection.withParsedHtml({ url: page.url, html: page.html, headers: page.headers }, parsed),
      ),
    enrich: (page, parsed) =>
      enrichment.enrichSiteWithCountry({
        siteUrl: page.url,
        pages: [{ url: page.url, html: page.html, headers: page.headers, parsed }],
        technologies: [],
      }),
  };
}

type Totals = { parse: number; detect: number; enrich: number };

function runStages(build: Build, page: Page, totals: Totals | null): void {
  let parsed: unknown;
  const parse = cpu(() => (parsed = build.parse(page)));
  const detect = cpu(() => build.detect(page, parsed));
  const enrich = cpu(() => build.enrich(page, parsed));
  if (totals) {
    totals.parse += parse;
    totals.detect += detect;
    totals.enrich += enrich;
  }
}

function main(): void {
  const here = resolve(__dirname, '../..');
  const other = resolve(process.env.PARSE_AB_OTHER ?? here);
  const rounds = Math.max(1, Number(process.env.PARSE_AB_ROUNDS ?? 6));
  const warmup = Math.max(1, Number(process.env.PARSE_AB_WARMUP ?? DEFAULT_WARMUP_ROUNDS));
  const builds = [loadBuild(`A ${here}`, here), loadBuild(`B ${other}`, other)];
  const pages: Page[] = loadParsePages().map((page) => ({
    url: page.url,
    html: page.html,
    headers: headerLists(page.headers),
  }));
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  for (let pass = 0; pass < warmup; pass++) {
    for (const page of pages) {
      bareTokenize(page.html);
      for (const build of builds) runStages(build, page, null);
    }
  }
  const totals: Totals[] = builds.map(() => ({ parse: 0, detect: 0, enrich: 0 }));
  let tokenizer = 0;
  for (let round = 0; round < rounds; round++) {
    for (const page of pages) {
      tokenizer += cpu(() => bareTokenize(page.html));
      for (let k = 0; k < builds.length; k++) {
        const which = (k + round) % builds.length;
        runStages(builds[which], page, totals[which]);
      }
    }
  }
  const per = (total: number): number => total / rounds / pages.length;
  console.log(
    `${pages.length} pages, ${rounds} rounds after ${warmup} warm-up passes; bare tokenizer ${per(tokenizer).toFixed(3)} ms/page`,
  );
  builds.forEach((build, k) => {
    const { parse, detect, enrich } = totals[k];
    const ratio = (per(parse) + per(detect) + per(enrich)) / per(tokenizer);
    console.log(
      `${build.name}: parse ${per(parse).toFixed(3)}, detect ${per(detect).toFixed(3)}, enrich ${per(enrich).toFixed(3)} ms/page; ratio ${ratio.toFixed(2)}`,
    );
  });
  console.log(
    `load average at end: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
}

main();
