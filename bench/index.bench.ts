/**
 * Index growth benchmark (issue 10 §5): stored lookups at INDEX_BENCH_SMALL sites (default 10,000)
 * and at INDEX_BENCH_SITES sites (default 1,000,000) of a synthetic index (bench/synthetic-index.ts:
 * ~7.2 technologies a site, Zipf-like over 500 slugs), on SQLite and, when MariaDB answers at
 * INDEX_BENCH_MYSQL_URL, on MariaDB. A stored lookup is what GET /v2/lookup/ reads from the index
 * for a known site: the site by host name, its technologies in the age window, its enrichment
 * fields. INDEX_BENCH_LOOKUPS random sites (default 2,000) are looked up one after another; p50
 * and p99 are printed, and the ratio large/small (the target: at most 1.5×).
 *
 *   npm run bench:index      (INDEX_BENCH_SITES=N INDEX_BENCH_SMALL=N INDEX_BENCH_LOOKUPS=N
 *                             INDEX_BENCH_DATABASES=sqlite,mariadb or one of them)
 */
import './crawl/quiet-logs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { loadConfig } from '../src/config';
import { Database } from '../src/db/database';
import { ENRICHMENT_SETS } from '../src/enrichment';
import { buildServices } from '../src/services/services';
import { buildSyntheticIndex } from './synthetic-index';

const LARGE = Math.max(1000, Number(process.env.INDEX_BENCH_SITES ?? 1_000_000));
const SMALL = Math.max(1000, Number(process.env.INDEX_BENCH_SMALL ?? 10_000));
const LOOKUPS = Math.max(100, Number(process.env.INDEX_BENCH_LOOKUPS ?? 2_000));
const MYSQL = process.env.INDEX_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
/** Which databases to measure: "sqlite,mariadb" (the default), or one of them. */
const DATABASES = (process.env.INDEX_BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** Child: builds the index in a fresh database and prints `RESULT p50 p99` (milliseconds). */
async function measure(databaseUrl: string, sites: number): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(config.DATABASE_URL);
  try {
    const services = await buildServices(config, db);
    await buildSyntheticIndex(db, services.engine.fingerprints, sites);
    if (db.dialect === 'sqlite') await db.query('ANALYZE');
    else await db.query('ANALYZE TABLE sites, site_technologies, site_languages');
    const reader = services.storedSites;
    const now = new Date();
    // Host names as the generator writes them: s<n> and a TLD chosen by n % 4.
    const tlds = ['.com', '.de', '.net', '.io'];
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const timings: number[] = [];
    for (let i = 0; i < LOOKUPS + 100; i++) {
      const n = Math.floor(random() * sites);
      const started = performance.now();
      const site = await reader.site(`https://s${n}${tlds[n % 4]}/`);
      if (!site) throw new Error(`s${n}${tlds[n % 4]} is not in the index`);
      await reader.technologies(site, { window: { minAge: 0, maxAge: 12 }, minConfidence: 0, now });
      await reader.fields(site, ENRICHMENT_SETS);
      // The first 100 warm the caches and the JIT.
      if (i >= 100) timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))];
    console.log(`RESULT ${at(0.5).toFixed(3)} ${at(0.99).toFixed(3)}`);
  } finally {
    await db.close();
  }
}

/** One size in its own process (fresh caches, its own memory); returns [p50, p99]. */
function run(label: string, databaseUrl: string, sites: number): [number, number] {
  const started = performance.now();
  const child = spawnSync(process.execPath, [__filename, '--child', databaseUrl, String(sites)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(child.stdout.replace(/^RESULT.*\n?/m, ''));
  const line = /^RESULT (\S+) (\S+)/m.exec(child.stdout);
  if (child.status !== 0 || !line)
    throw new Error(`${label} at ${sites} sites failed (${child.status ?? child.signal})`);
  const [p50, p99] = [Number(line[1]), Number(line[2])];
  console.log(
    `${label}, ${sites} sites: stored lookup p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms ` +
      `(${LOOKUPS} lookups; build + measure ${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  return [p50, p99];
}

function compare(label: string, small: [number, number], large: [number, number]): void {
  console.log(
    `${label}: ${LARGE} vs ${SMALL} sites: p50 ×${(large[0] / small[0]).toFixed(2)}, p99 ×${(large[1] / small[1]).toFixed(2)} (target ≤ 1.5)`,
  );
}

async function onMariaDb(sites: number): Promise<[number, number] | null> {
  let admin;
  try {
    admin = await createConnection(MYSQL);
  } catch {
    return null;
  }
  const schema = `index_bench_${process.pid}_${sites}`;
  try {
    await admin.query(`CREATE DATABASE \`${schema}\``);
    const url = new URL(MYSQL);
    url.pathname = `/${schema}`;
    return run('MariaDB', url.toString(), sites);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS \`${schema}\``);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const [flag, databaseUrl, sites] = process.argv.slice(2);
  if (flag === '--child') return measure(databaseUrl, Number(sites));
  console.log(`load average at start: ${load()} (a shared machine: other work runs alongside)`);
  const dir = mkdtempSync(join(tmpdir(), 'index-bench-'));
  try {
    if (DATABASES.includes('sqlite')) {
      compare(
        'SQLite',
        run('SQLite', `sqlite:${join(dir, 'small.db')}`, SMALL),
        run('SQLite', `sqlite:${join(dir, 'large.db')}`, LARGE),
      );
      rmSync(join(dir, 'large.db'), { force: true });
    }
    if (DATABASES.includes('mariadb')) {
      const small = await onMariaDb(SMALL);
      if (!small) console.log(`MariaDB: skipped (nothing answers at ${MYSQL})`);
      else compare('MariaDB', small, (await onMariaDb(LARGE))!);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    console.log(`load average at end: ${load()}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
