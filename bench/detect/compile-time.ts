/**
 * Fingerprint compile time, each run in a fresh process (a warm process would hide the cold-JIT cost
 * that every real start-up pays). Prints each run and the medians of `loadFingerprints()` (read +
 * parse JSON + compile) and of `Fingerprints.compileMs`, wall and CPU, with the load average.
 *
 *   npm run build && node dist/bench/detect/compile-time.js [runs, default 7]
 */
import { execFileSync } from 'node:child_process';

import { loadFingerprints } from '../../src/detection';
import { cpuMsSince, loadAverage, median } from './stats';

interface Run {
  loadWallMs: number;
  loadCpuMs: number;
  compileMs: number;
  compileCpuMs: number;
}

/** One load in this process: the child's side. */
function child(): void {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const fingerprints = loadFingerprints();
  const run: Run = {
    loadWallMs: performance.now() - start,
    loadCpuMs: cpuMsSince(cpu),
    compileMs: fingerprints.compileMs,
    compileCpuMs: fingerprints.compileCpuMs,
  };
  console.log(JSON.stringify(run));
}

function parent(): void {
  const count = Math.max(1, Number(process.argv[2] ?? 7));
  console.log(`load average at start: ${loadAverage()}`);
  const runs: Run[] = [];
  for (let k = 0; k < count; k++) {
    const out = execFileSync(process.execPath, [__filename, '--child'], { encoding: 'utf8' });
    const run = JSON.parse(out.trim().split('\n').pop() as string) as Run;
    runs.push(run);
    console.log(
      `  run ${k + 1}: load ${run.loadWallMs.toFixed(0)} ms wall / ${run.loadCpuMs.toFixed(0)} ms CPU; ` +
        `compile ${run.compileMs.toFixed(0)} ms wall / ${run.compileCpuMs.toFixed(0)} ms CPU`,
    );
  }
  const med = (pick: (run: Run) => number): string => median(runs.map(pick)).toFixed(0);
  console.log(
    `median of ${count}: loadFingerprints ${med((r) => r.loadWallMs)} ms wall / ${med((r) => r.loadCpuMs)} ms CPU; ` +
      `compile ${med((r) => r.compileMs)} ms wall / ${med((r) => r.compileCpuMs)} ms CPU`,
  );
  console.log(`load average at end: ${loadAverage()}`);
}

if (process.argv[2] === '--child') child();
else parent();
