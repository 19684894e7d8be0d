/**
 * Index growth benchmark (issue 10 §5): stored lookups at INDEX_BENCH_SMALL sites (default 10,000)
 * and at INDEX_BENCH_SITES sites (default 1,000,000) of a synthetic index (bench/synthetic-index.ts:
 * ~7.2 technologies a site, Zipf-like over 500 slugs), on SQLite and, when MariaDB answers at
 * INDEX_BENCH_MYSQL_URL, on MariaDB. A stored lookup is what GET /v2/lookup/ reads from the index
 * for a known site: the site by host name, its technologies in the age window, its enrichment
 * fields. INDEX_BENCH_LOOKUPS random sites (default 2,000) are looked up one after another; p50
 * and p99 are printed, and the ratio large/small (the target: at most 1.5×).
 *
 *   npm run bench:index      (INDEX_BENCH_SITES=N INDEX_BENCH_SMALL=N INDEX_BENCH_LOOKUPS=N INDEX_BENCH_ROUNDS=N
 *                             INDEX_BENCH_DATABASES=sqlite,mariadb or one of them)
 */
import './crawl/quiet-logs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { loadConfig } from '../src/platform/config';
import { Database } from '../src/storage/database';
import { ENRICHMENT_SETS } from '../src/enrichment';
import { buildServices } from '../src/services/services';
import { describeBufferPool } from './mariadb-scratch';
import { buildSyntheticIndex } from './synthetic-index';

const LARGE = Math.max(1000, Number(process.env.INDEX_BENCH_SITES ?? 1_000_000));
const SMALL = Math.max(1000, Number(process.env.INDEX_BENCH_SMALL ?? 10_000));
const LOOKUPS = Math.max(100, Number(process.env.INDEX_BENCH_LOOKUPS ?? 2_000));
/** Alternating measurement rounds per size (the figures are their medians). */
const ROUNDS = Math.max(1, Number(process.env.INDEX_BENCH_ROUNDS ?? 5));
const MYSQL = process.env.INDEX_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
/** Which databases to measure: "sqlite,mariadb" (the default), or one of them. */
const DATABASES = (process.env.INDEX_BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** Host names as the generator writes them: s<n> and a TLD chosen by n % 4. */
const TLDS = ['.com', '.de', '.net', '.io'];

/** Child `build`: the synthetic index in a fresh database, analysed for the query planner. */
async function build(databaseUrl: string, sites: number): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(config.DATABASE_URL);
  try {
    const services = await buildServices(config, db);
    await buildSyntheticIndex(db, services.engine.fingerprints, sites);
    if (db.dialect === 'sqlite') await db.query('ANALYZE');
    else {
      await db.query('ANALYZE TABLE sites, site_technologies, site_languages');
      console.log(`MariaDB at ${sites} sites: ${await describeBufferPool(db)}`);
    }
  } finally {
    await db.close();
  }
}

/** Child `measure`: LOOKUPS random stored lookups one after another; prints `RESULT p50 p99`. */
async function measure(databaseUrl: string, sites: number, seed: number): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(config.DATABASE_URL);
  try {
    const reader = (await buildServices(config, db)).storedSites;
    const now = new Date();
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const timings: number[] = [];
    for (let i = 0; i < LOOKUPS + 100; i++) {
      const n = Math.floor(random() * sites);
      const started = performance.now();
      const site = await reader.site(`https://s${n}${TLDS[n % 4]}/`);
      if (!site) throw new Error(`s${n}${TLDS[n % 4]} is not in the index`);
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

/** Runs this file as a child (fresh caches, its own memory); returns its RESULT numbers, if any. */
function child(label: string, args: string[]): number[] {
  const child = spawnSync(process.execPath, [__filename, '--child', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  process.stdout.write(child.stdout.replace(/^RESULT.*\n?/m, ''));
  if (child.status !== 0) throw new Error(`${label} failed (${child.status ?? child.signal})`);
  const line = /^RESULT (.*)$/m.exec(child.stdout);
  return line ? line[1].split(' ').map(Number) : [];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Both sizes are built first and then measured in alternating rounds (small, large, small, …),
 * each round in a fresh process; the figures are the medians over the rounds. A lookup takes
 * about a millisecond, so one run alone is swayed by whatever the machine does at that moment
 * (on MariaDB, the background purge and page flushing that follow a bulk build): measured one
 * after the other, the same 10,000-site index gave p50 1.02 ms and 0.46 ms.
 */
async function compare(label: string, urls: { small: string; large: string }, settle: () => Promise<void>) {
  for (const [sites, url] of [
    [SMALL, urls.small],
    [LARGE, urls.large],
  ] as const) {
    const started = performance.now();
    child(`${label} build at ${sites} sites`, ['build', url, String(sites)]);
    console.log(`${label}, ${sites} sites built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  await settle();
  const rounds: Record<'small' | 'large', number[][]> = { small: [], large: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [size, sites] of [
      ['small', SMALL],
      ['large', LARGE],
    ] as const) {
      const [p50, p99] = child(`${label} lookups at ${sites} sites`, [
        'measure',
        urls[size],
        String(sites),
        String(12345 + round),
      ]);
      rounds[size].push([p50, p99]);
      console.log(
        `${label}, ${sites} sites, round ${round + 1}: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
      );
    }
  }
  const [small, large] = (['small', 'large'] as const).map((size) => [
    median(rounds[size].map((r) => r[0])),
    median(rounds[size].map((r) => r[1])),
  ]);
  for (const [sites, figures] of [
    [SMALL, small],
    [LARGE, large],
  ] as const)
    console.log(
      `${label}, ${sites} sites: stored lookup p50 ${figures[0].toFixed(2)} ms, p99 ${figures[1].toFixed(2)} ms ` +
        `(median of ${ROUNDS} rounds of ${LOOKUPS} lookups)`,
    );
  console.log(
    `${label}: ${LARGE} vs ${SMALL} sites: p50 ×${(large[0] / small[0]).toFixed(2)}, p99 ×${(large[1] / small[1]).toFixed(2)} (target ≤ 1.5)`,
  );
}

/**
 * MariaDB after a bulk build keeps purging and flushing for a while: wait (≤ 5 min) until the purge
 * is done and the dirty pages stop falling (InnoDB may keep some dirty while idle).
 */
async function mariaDbSettled(admin: Connection): Promise<void> {
  const until = Date.now() + 300_000;
  let lastDirty = Infinity;
  for (;;) {
    const [rows] = (await admin.query(
      "SELECT (SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len') AS history, " +
        "(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_DIRTY') AS dirty",
    )) as unknown as [{ history: number | null; dirty: string | null }[]];
    const history = Number(rows[0].history ?? 0);
    const dirty = Number(rows[0].dirty ?? 0);
    if ((history < 1000 && dirty >= lastDirty * 0.98) || Date.now() > until) {
      console.log(`MariaDB settled: purge history ${history}, dirty pages ${dirty}`);
      return;
    }
    lastDirty = dirty;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

async function onMariaDb(): Promise<void> {
  let admin: Connection;
  try {
    admin = await createConnection(MYSQL);
  } catch {
    console.log(`MariaDB: skipped (nothing answers at ${MYSQL})`);
    return;
  }
  const schemas = { small: `index_bench_${process.pid}_small`, large: `index_bench_${process.pid}_large` };
  const urlOf = (schema: string) => {
    const url = new URL(MYSQL);
    url.pathname = `/${schema}`;
    return url.toString();
  };
  try {
    for (const schema of Object.values(schemas)) await admin.query(`CREATE DATABASE \`${schema}\``);
    await compare('MariaDB', { small: urlOf(schemas.small), large: urlOf(schemas.large) }, () =>
      mariaDbSettled(admin),
    );
  } finally {
    for (const schema of Object.values(schemas)) await admin.query(`DROP DATABASE IF EXISTS \`${schema}\``);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const [flag, mode, databaseUrl, sites, seed] = process.argv.slice(2);
  if (flag === '--child')
    return mode === 'build'
      ? build(databaseUrl, Number(sites))
      : measure(databaseUrl, Number(sites), Number(seed));
  console.log(`load average at start: ${load()} (a shared machine: other work runs alongside)`);
  const dir = mkdtempSync(join(tmpdir(), 'index-bench-'));
  try {
    if (DATABASES.includes('sqlite'))
      await compare(
        'SQLite',
        { small: `sqlite:${join(dir, 'small.db')}`, large: `sqlite:${join(dir, 'large.db')}` },
        async () => {},
      );
    rmSync(join(dir, 'large.db'), { force: true });
    if (DATABASES.includes('mariadb')) await onMariaDb();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    console.log(`load average at end: ${load()}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
