import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run bench`: every benchmark, one after another in its own process (so one's memory and
 * JIT state cannot colour another's figures), stopping at the first that fails.
 */
const BENCHMARKS = [
  'detect.bench.js',
  'accuracy.bench.js',
  'parse-cost.js',
  'crawl.bench.js',
  'hot-path.bench.js',
  'import.bench.js',
  'render.bench.js',
  'lists.bench.js',
  'index.bench.js',
  'workers.bench.js',
  'record.bench.js',
  'trends.bench.js',
  'fingerprints.bench.js',
  'memory.bench.js',
];

for (const file of BENCHMARKS) {
  console.log(`\n=== ${file.replace(/(\.bench)?\.js$/, '')} ===`);
  const result = spawnSync(process.execPath, [join(__dirname, file)], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${file} failed with exit code ${result.status ?? result.signal}`);
    process.exit(1);
  }
}
