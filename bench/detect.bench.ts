/**
 * Detection benchmark: our engine, wappalyzer-core@6.10.66 fed correctly, and simple-wappalyzer as
 * published, on the page corpus of test/fixtures/pages. Prints per-page median and p95 milliseconds
 * (wall and CPU), the ratios, fingerprint compile time (wall and CPU), peak RSS, the technologies each
 * finds per page with every difference to the reference explained, and ends with
 * `detect speedup vs reference core: X.XX` (reference median / our median, wall time).
 *
 * The machine this runs on is often loaded, so: the engines run interleaved, page by page (each page
 * is analysed by the three in turn, the order rotating every round), so load hits them alike; CPU time
 * is printed next to wall time; the load average is printed at start and end; and our compile time
 * and peak RSS are measured in a child process running our engine alone.
 *
 *   npm run bench:detect            (DETECT_BENCH_ROUNDS=N to change the timed rounds, default 5)
 */
import { execFileSync } from 'node:child_process';
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
import { loadAverage, measure, median, p95, peakRssMb, type Sample } from './detect/stats';

const ROUNDS = Math.max(1, Number(process.env.DETECT_BENCH_ROUNDS ?? 5));

const fmt = (n: number, digits = 2): string => n.toFixed(digits);

interface OursAlone {
  compileMs: number;
  compileCpuMs: number;
  loadWallMs: number;
  loadCpuMs: number;
  firstWallMs: number;
  firstCpuMs: number;
  medianMs: number;
  peakRssMb: number;
}

/** Our engine alone in a fresh process (compiled bench: dist/bench/detect/ours-alone.js). */
function runOursAlone(): OursAlone {
  const out = execFileSync(process.execPath, [join(__dirname, 'detect', 'ours-alone.js')], {
    env: { ...process.env, DETECT_BENCH_ROUNDS: String(ROUNDS) },
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as OursAlone;
}

type EngineName = 'ours' | 'core' | 'simple';
const ENGINES: EngineName[] = ['ours', 'core', 'simple'];

async function main(): Promise<void> {
  console.log(`load average at start: ${loadAverage()}`);
  const pages = loadCorpus();
  const sizes = pages.map((p) => Buffer.byteLength(p.input.html) / 1024);
  console.log(
    `corpus: ${pages.length} pages, ${fmt(Math.min(...sizes), 0)}-${fmt(Math.max(...sizes), 0)} KB (median ${fmt(median(sizes), 0)} KB); ` +
      `${ROUNDS} timed rounds after a warm-up, engines interleaved per page`,
  );

  const alone = runOursAlone();
  console.log(
    `ours alone (child process): compile ${fmt(alone.compileMs, 0)} ms wall / ${fmt(alone.compileCpuMs, 0)} ms CPU ` +
      `(read + parse JSON + compile ${fmt(alone.loadWallMs, 0)} ms wall / ${fmt(alone.loadCpuMs, 0)} ms CPU); ` +
      `first page ${fmt(alone.firstWallMs, 1)} ms wall / ${fmt(alone.firstCpuMs, 1)} ms CPU; ` +
      `per-page median ${fmt(alone.medianMs)} ms; peak RSS ${fmt(alone.peakRssMb, 0)} MB`,
  );

  const loadStart = performance.now();
  const loadCpu = process.cpuUsage();
  const fingerprints = loadFingerprints();
  const loadCpuUsed = process.cpuUsage(loadCpu);
  const loadMs = performance.now() - loadStart;
  const engine = new DetectionEngine(fingerprints);
  console.log(
    `fingerprints: ${fingerprints.technologies.length} technologies, ${fingerprints.categories.length} categories; ` +
      `compile ${fmt(fingerprints.compileMs, 0)} ms wall / ${fmt(fingerprints.compileCpuMs, 0)} ms CPU ` +
      `(read + parse JSON + compile ${fmt(loadMs, 0)} ms wall / ${fmt((loadCpuUsed.user + loadCpuUsed.system) / 1000, 0)} ms CPU)`,
  );
  console.log(`fingerprint warnings: ${JSON.stringify(fingerprints.warningCounts())}`);

  const dir = defaultFingerprintDirectory();
  const rawTechnologies = JSON.parse(readFileSync(join(dir, 'technologies.json'), 'utf8'));
  const rawCategories = JSON.parse(readFileSync(join(dir, 'categories.json'), 'utf8'));
  const simple = loadSimpleWappalyzer(); // before our core copy: it configures the shared module
  const core = loadReferenceCore(rawTechnologies, rawCategories);

  // What each engine is given, prepared untimed (a browser driver has the core's items for free).
  const coreItems = pages.map((page) => feedItems(page.input));
  const simpleInputs = pages.map((page) => simpleInput(page.input));
  const runs: Record<EngineName, (i: number) => unknown> = {
    ours: (i) => engine.analyze(pages[i].input),
    core: (i) => runReferenceCore(core, coreItems[i]),
    simple: (i) => simple(simpleInputs[i]),
  };

  const samples: Record<EngineName, Sample[][]> = {
    ours: pages.map(() => []),
    core: pages.map(() => []),
    simple: pages.map(() => []),
  };
  const oursResults: DetectionResult[] = [];
  const coreResults: { name: string; version: string }[][] = [];
  const simpleResults: { name: string; version: string }[][] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    for (let i = 0; i < pages.length; i++) {
      for (let k = 0; k < ENGINES.length; k++) {
        const name = ENGINES[(k + round + i) % ENGINES.length];
        const [sample, result] = await measure(() => runs[name](i));
        if (round === 0) {
          // Warm-up round: not timed; its results are the ones compared below.
          if (name === 'ours') oursResults[i] = result as DetectionResult;
          else if (name === 'core') coreResults[i] = result as { name: string; version: string }[];
          else simpleResults[i] = result as { name: string; version: string }[];
        } else samples[name][i].push(sample);
      }
    }
  }

  const wall = (name: EngineName): number[] => samples[name].map((s) => median(s.map((x) => x.wallMs)));
  const cpu = (name: EngineName): number[] => samples[name].map((s) => median(s.map((x) => x.cpuMs)));
  const ours = wall('ours');
  const coreMs = wall('core');
  const simpleMs = wall('simple');

  console.log('\nper page, ms             wall median   wall p95   CPU median    CPU p95');
  const row = (label: string, name: EngineName): void =>
    console.log(
      `  ${label.padEnd(22)} ${fmt(median(wall(name))).padStart(11)} ${fmt(p95(wall(name))).padStart(10)} ` +
        `${fmt(median(cpu(name))).padStart(12)} ${fmt(p95(cpu(name))).padStart(10)}`,
    );
  row('ours (with DOM)', 'ours');
  row('reference core (fed)', 'core');
  row('simple-wappalyzer', 'simple');
  console.log(
    `ratios: reference core / ours: median ${fmt(median(coreMs) / median(ours))}x, p95 ${fmt(p95(coreMs) / p95(ours))}x ` +
      `(CPU: median ${fmt(median(cpu('core')) / median(cpu('ours')))}x, p95 ${fmt(p95(cpu('core')) / p95(cpu('ours')))}x); ` +
      `simple-wappalyzer / ours: median ${fmt(median(simpleMs) / median(ours))}x, p95 ${fmt(p95(simpleMs) / p95(ours))}x`,
  );
  const perPageRatios = pages.map((_, i) => coreMs[i] / ours[i]);
  const perPageCpuRatios = pages.map((_, i) => cpu('core')[i] / cpu('ours')[i]);
  console.log(
    `per-page speedup vs reference core: min ${fmt(Math.min(...perPageRatios))}x, median ${fmt(median(perPageRatios))}x ` +
      `(CPU: min ${fmt(Math.min(...perPageCpuRatios))}x, median ${fmt(median(perPageCpuRatios))}x)`,
  );
  console.log(
    `peak RSS: ${fmt(alone.peakRssMb, 0)} MB for our engine alone (child process); ${fmt(peakRssMb(), 0)} MB for the whole benchmark`,
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
  console.log(`load average at end: ${loadAverage()}`);
  console.log(`detect speedup vs reference core: ${fmt(median(coreMs) / median(ours))}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
