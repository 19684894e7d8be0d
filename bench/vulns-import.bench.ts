/**
 * Flat memory of `vulns:import` on a large NVD feed (issue 33, Tests): a generated NVD CVE API 2.0
 * document of VULNS_BENCH_MB megabytes of JSON (default 300), written streaming as `.json` and
 * gzip-compressed beside it as `.json.gz` (the yearly feeds come both ways), then each imported
 * through the service the CLI calls into a fresh SQLite database, in a child process with the CLI's
 * heap cap (VULNS_BENCH_HEAP_MB, default 128, as --max-old-space-size). The child prints RSS and
 * heap used at every tenth of the file in each pass (check, write) and the peaks at the end: flat
 * memory is a peak reached early that does not grow with the part of the file read.
 *
 *   npm run bench:vulns-import                       # 300 MB, .json and .json.gz
 *   VULNS_BENCH_MB=50 VULNS_BENCH_FORMATS=gz npm run bench:vulns-import
 */
import './crawl/quiet-logs';
import { spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { loadConfig } from '../src/platform/config';
import { buildServices } from '../src/services/services';
import { Database } from '../src/storage/database';
import { writeGeneratedNvdFeed } from './vulns/generated-nvd-feed';

const MEGABYTES = Math.max(1, Number(process.env.VULNS_BENCH_MB ?? 300));
const FORMATS = (process.env.VULNS_BENCH_FORMATS ?? 'json,gz').split(',').map((f) => f.trim());
const HEAP_MB = Number(process.env.VULNS_BENCH_HEAP_MB ?? 128);
const MB = 1_048_576;

const mb = (bytes: number) => (bytes / MB).toFixed(0);

/** The child: one import of `file` into a fresh database at `url`, memory printed as it goes. */
async function importOne(file: string, url: string): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: url });
  const db = await Database.open(url, { sqliteCacheMb: 8 });
  const services = await buildServices(config, db);
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
    return m;
  };
  const before = sample();
  console.log(`  service graph up: RSS ${mb(before.rss)} MB, heap used ${mb(before.heapUsed)} MB`);
  let reported = { pass: '', tenth: -1 };
  const onProgress = (pass: 'check' | 'write', read: number, total: number) => {
    const m = sample();
    const tenth = total > 0 ? Math.floor((10 * read) / total) : 0;
    if (pass === reported.pass && tenth <= reported.tenth) return;
    reported = { pass, tenth };
    console.log(
      `  ${pass.padEnd(5)} ${String(tenth * 10).padStart(3)}% of the file: RSS ${mb(m.rss)} MB, heap used ` +
        `${mb(m.heapUsed)} MB (peaks ${mb(peakRss)} / ${mb(peakHeap)} MB)`,
    );
  };
  const timer = setInterval(sample, 100);
  const started = performance.now();
  try {
    const summary = await services.vulnerabilities.importFile(file, onProgress);
    sample();
    console.log(
      `  imported ${summary.added} records (read ${summary.read}) in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
        `(two passes); RSS ${mb(before.rss)} MB before, peak ${mb(peakRss)} MB; peak heap used ${mb(peakHeap)} MB ` +
        `(cap ${HEAP_MB} MB); load ${loadavg()[0].toFixed(2)}`,
    );
  } finally {
    clearInterval(timer);
    services.fingerprints.stop();
    await db.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vulns-bench-'));
  try {
    const json = join(dir, 'feed.json');
    const started = performance.now();
    const records = await writeGeneratedNvdFeed(json, MEGABYTES);
    const files: Record<string, string> = { json };
    if (FORMATS.includes('gz')) {
      files.gz = `${json}.gz`;
      await pipeline(createReadStream(json), createGzip(), createWriteStream(files.gz));
    }
    console.log(
      `generated ${records} records: ${mb(statSync(json).size)} MB of JSON` +
        (files.gz ? `, ${(statSync(files.gz).size / MB).toFixed(1)} MB gzip-compressed` : '') +
        ` in ${((performance.now() - started) / 1000).toFixed(1)} s; load ${loadavg()[0].toFixed(2)}`,
    );
    for (const format of FORMATS) {
      const file = files[format];
      if (!file) throw new Error(`VULNS_BENCH_FORMATS: "${format}" is neither json nor gz`);
      console.log(
        `${file.slice(dir.length + 1)} (${(statSync(file).size / MB).toFixed(1)} MB), heap cap ${HEAP_MB} MB:`,
      );
      const child = spawnSync(
        process.execPath,
        [
          `--max-old-space-size=${HEAP_MB}`,
          __filename,
          '--import',
          file,
          `sqlite:${join(dir, `${format}.db`)}`,
        ],
        { stdio: 'inherit' },
      );
      if (child.status !== 0) throw new Error(`the import of ${file} failed (exit ${child.status})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const [flag, file, url] = process.argv.slice(2);
(flag === '--import' ? importOne(file, url) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
