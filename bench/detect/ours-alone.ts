/**
 * Our engine alone in a fresh process: its compile time (wall and CPU), the cost of the first page
 * (cold code, plus the prefilter sets and literal tables that the first page builds), per-page times and the process's peak RSS, without the other engines' memory in the
 * way. Run by detect.bench.ts; prints one JSON line.
 */
import { DetectionEngine, loadFingerprints } from '../../src/detection';
import { loadCorpus } from './corpus';
import { cpuMsSince, median, peakRssMb } from './stats';

function main(): void {
  const rounds = Math.max(1, Number(process.env.DETECT_BENCH_ROUNDS ?? 5));
  const pages = loadCorpus();
  const rssBefore = peakRssMb();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const fingerprints = loadFingerprints();
  const loadWallMs = performance.now() - start;
  const loadCpuMs = cpuMsSince(cpu);
  const engine = new DetectionEngine(fingerprints);

  const firstCpu = process.cpuUsage();
  const firstStart = performance.now();
  engine.analyze(pages[0].input);
  const firstWallMs = performance.now() - firstStart;
  const firstCpuMs = cpuMsSince(firstCpu);

  const perPage: number[][] = pages.map(() => []);
  for (let round = 0; round <= rounds; round++) {
    pages.forEach((page, i) => {
      const t = performance.now();
      engine.analyze(page.input);
      if (round > 0) perPage[i].push(performance.now() - t); // round 0 warms up
    });
  }
  console.log(
    JSON.stringify({
      compileMs: fingerprints.compileMs,
      compileCpuMs: fingerprints.compileCpuMs,
      loadWallMs,
      loadCpuMs,
      firstWallMs,
      firstCpuMs,
      medianMs: median(perPage.map(median)),
      rssBeforeMb: rssBefore,
      peakRssMb: peakRssMb(),
    }),
  );
}

main();
