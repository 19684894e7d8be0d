/**
 * Flat memory of `vulns:import` on a large NVD feed: a generated NVD CVE API 2.0 document of
 * VULNS_BENCH_MB megabytes (default 300; gzip-compressed like the yearly feeds when
 * VULNS_BENCH_GZIP=1, the default), written streaming, then imported through the service the CLI
 * calls into a fresh SQLite database, with the CLI's heap cap (run this file with
 * --max-old-space-size=128, as `npm run bench:vulns-import` does). Prints the records, the time,
 * and the peak RSS and heap sampled during the import: flat memory means a peak that does not
 * grow with the file (compare VULNS_BENCH_MB=50 with 300).
 */
import './crawl/quiet-logs';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { loadConfig } from '../src/platform/config';
import { buildServices } from '../src/services/services';
import { Database } from '../src/storage/database';

const MEGABYTES = Math.max(1, Number(process.env.VULNS_BENCH_MB ?? 300));
const GZIP = (process.env.VULNS_BENCH_GZIP ?? '1') !== '0';

function item(n: number): string {
  const version = `${1 + (n % 9)}.${n % 20}.${n % 7}`;
  return JSON.stringify({
    cve: {
      id: `CVE-2024-${100000 + n}`,
      sourceIdentifier: 'cve@mitre.org',
      published: '2024-03-01T10:15:00.000',
      lastModified: '2024-06-01T10:15:00.000',
      vulnStatus: 'Analyzed',
      descriptions: [
        { lang: 'en', value: `Generated record ${n}: `.padEnd(900, 'lorem ipsum dolor sit amet ') },
      ],
      metrics: {
        cvssMetricV31: [
          {
            source: 'nvd@nist.gov',
            type: 'Primary',
            cvssData: {
              version: '3.1',
              vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N',
              baseScore: 6.1,
              baseSeverity: 'MEDIUM',
            },
          },
        ],
      },
      configurations: [
        {
          nodes: [
            {
              operator: 'OR',
              negate: false,
              cpeMatch: [
                {
                  vulnerable: true,
                  criteria: `cpe:2.3:a:vendor${n % 500}:product${n % 2000}:*:*:*:*:*:*:*:*`,
                  versionEndExcluding: version,
                },
              ],
            },
          ],
        },
      ],
      references: [{ url: `https://example.org/advisories/${n}`, source: 'cve@mitre.org' }],
    },
  });
}

async function generate(path: string): Promise<number> {
  const file = createWriteStream(path);
  const out = GZIP ? createGzip() : file;
  if (GZIP) out.pipe(file);
  const write = (text: string) =>
    new Promise<void>((resolve) => (out.write(text) ? resolve() : out.once('drain', () => resolve())));
  await write(
    '{"resultsPerPage":0,"startIndex":0,"totalResults":0,"format":"NVD_CVE","version":"2.0","timestamp":"2026-11-27T00:00:00.000","vulnerabilities":[',
  );
  let written = 0;
  let n = 0;
  while (written < MEGABYTES * 1_048_576) {
    const text = (n > 0 ? ',' : '') + item(n++);
    written += text.length;
    await write(text);
  }
  await write(']}');
  await new Promise<void>((resolve) => {
    file.once('close', () => resolve());
    out.end();
  });
  return n;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vulns-bench-'));
  try {
    const feed = join(dir, GZIP ? 'feed.json.gz' : 'feed.json');
    const records = await generate(feed);
    console.log(
      `generated ${records} records, ${MEGABYTES} MB of JSON (${(statSync(feed).size / 1_048_576).toFixed(0)} MB on disk); load ${loadavg()[0].toFixed(2)}`,
    );
    const url = `sqlite:${join(dir, 'vulns.db')}`;
    const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: url });
    const db = await Database.open(url, { sqliteCacheMb: 8 });
    const services = await buildServices(config, db);
    let peakRss = 0;
    let peakHeap = 0;
    const sample = () => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    };
    const rssBefore = process.memoryUsage().rss;
    const timer = setInterval(sample, 100);
    const started = performance.now();
    try {
      const summary = await services.vulnerabilities.importFile(feed, sample);
      sample();
      console.log(
        `imported ${summary.added} records in ${((performance.now() - started) / 1000).toFixed(1)} s (two passes); ` +
          `RSS ${(rssBefore / 1_048_576).toFixed(0)} MB before, peak ${(peakRss / 1_048_576).toFixed(0)} MB; ` +
          `peak heap used ${(peakHeap / 1_048_576).toFixed(0)} MB; load ${loadavg()[0].toFixed(2)}`,
      );
    } finally {
      clearInterval(timer);
      services.fingerprints.stop();
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
