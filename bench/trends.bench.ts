/**
 * Trends (issue 32 §5): what a 12-month trend request costs on the 1,000,000-site synthetic index
 * (target p99 < 50 ms on SQLite and MariaDB), and what the trend aggregates add to storing one
 * analysis (target 10% or less).
 *
 * Reads: the synthetic index of bench/synthetic-index.ts, then its trend aggregates for 12 months,
 * made set-based from its site technologies as the analyses would have raised them (every site
 * analysed every month; the sites spread over 200 synthetic countries, so that a popular
 * technology's month holds as many country × rank-bucket rows as the real web would give it; the
 * fingerprint version switching in the seventh month). Then TRENDS_BENCH_REQUESTS calls of the
 * trend service (what REST and GraphQL call; HTTP not included) in a mix: the most common
 * technology unfiltered, with two countries, within the top 100k, with a version, a mid-popular
 * technology, and the largest category; p50 and p99 milliseconds.
 *
 * Writes: as bench/record.bench.ts measures the timeline, two site indexes in one database store the
 * same analyses of different sites, interleaved, one with the trend writer and one with it replaced
 * by nothing; once with every timed analysis the first of its month for its site (each round is a
 * month: every count is raised, the worst case) and once with re-analyses within one month (the
 * common case: nothing new to count).
 *
 *   npm run bench:trends  (TRENDS_BENCH_SITES=1000000, TRENDS_BENCH_REQUESTS=500,
 *     TRENDS_BENCH_DATABASES=sqlite,mariadb, TRENDS_BENCH_MARIADB_URL=mysql://root@127.0.0.1:3306/,
 *     TRENDS_BENCH_RECORD_SITES=200, TRENDS_BENCH_RECORD_ROUNDS=6, TRENDS_BENCH_KEEP=1 to keep the
 *     read benchmark's index and aggregates and reuse them next time)
 */
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DetectedTechnology } from '../src/detection';
import { loadConfig } from '../src/platform/config';
import { buildServices } from '../src/services/services';
import { SiteIndexService, type SiteObservation } from '../src/services/site-index/site-index.service';
import { Database } from '../src/storage/database';
import { bulkLoad, type BulkQuery } from './mariadb-bulk-load';
import { describeBufferPool, keptMariaDbDatabase, withMariaDbDatabase } from './mariadb-scratch';
import { buildSyntheticIndex, syntheticIndexPlan } from './synthetic-index';

const SITES = Math.max(1000, Number(process.env.TRENDS_BENCH_SITES ?? 1_000_000));
const REQUESTS = Math.max(50, Number(process.env.TRENDS_BENCH_REQUESTS ?? 500));
const DATABASES = (process.env.TRENDS_BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
const MARIADB = process.env.TRENDS_BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const RECORD_SITES = Math.max(10, Number(process.env.TRENDS_BENCH_RECORD_SITES ?? 200));
const RECORD_ROUNDS = Math.max(2, Number(process.env.TRENDS_BENCH_RECORD_ROUNDS ?? 6));
/** Keep the read benchmark's database (index and aggregates) and reuse it in the next run. */
const KEEP = process.env.TRENDS_BENCH_KEEP === '1';
/** Names the builders of a kept database: changed when they change, so an older build is not reused. */
const BUILDER = 'synthetic-index 2026-11-28';
const SLICE = 10;
const MONTHS = 12;
const UNTIL = '2026-10';

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const BUCKET =
  'CASE WHEN s.traffic_rank IS NULL THEN 0 WHEN s.traffic_rank <= 1000 THEN 1 ' +
  'WHEN s.traffic_rank <= 10000 THEN 2 WHEN s.traffic_rank <= 100000 THEN 3 ' +
  'WHEN s.traffic_rank <= 1000000 THEN 4 ELSE 0 END';

function monthsUntil(until: string, n: number): string[] {
  const [y, m] = until.split('-').map(Number);
  return Array.from({ length: n }, (_, i) => new Date(Date.UTC(y, m - n + i, 1)).toISOString().slice(0, 7));
}

/**
 * The aggregates 12 months of analyses of every synthetic site would have raised. Each site's
 * country and rank bucket are worked out once, the technology and version counts come from one
 * grouping of the site technologies, and the months are written in the aggregates' key order (on
 * MariaDB through a bulk-load connection), so that the table grows at its end.
 */
async function buildAggregates(db: Database, category: { slug: string; members: string[] }, name: string) {
  const started = performance.now();
  const mysql = db.dialect === 'mysql';
  const country = mysql
    ? 'CONCAT(CHAR(65 + s.id % 20 USING utf8mb4), CHAR(65 + (s.id DIV 20) % 10 USING utf8mb4))'
    : 'char(65 + s.id % 20) || char(65 + (s.id / 20) % 10)';
  const months = monthsUntil(UNTIL, MONTHS + 1);
  const build = async (q: BulkQuery) => {
    await q('CREATE TABLE bench_site_dims (id INT PRIMARY KEY, country VARCHAR(2), rank_bucket INT)');
    await q(`INSERT INTO bench_site_dims SELECT s.id, ${country}, ${BUCKET} FROM sites s`);
    await q(
      'CREATE TABLE bench_trend_versions (slug VARCHAR(120), version VARCHAR(64), country VARCHAR(2), ' +
        'rank_bucket INT, sites INT)',
    );
    await q(
      'INSERT INTO bench_trend_versions SELECT t.slug, t.version, d.country, d.rank_bucket, COUNT(*) ' +
        'FROM site_technologies t JOIN bench_site_dims d ON d.id = t.site_id ' +
        'GROUP BY t.slug, t.version, d.country, d.rank_bucket',
    );
    await q(
      'CREATE TABLE bench_trend_base (kind VARCHAR(1), name VARCHAR(120), version VARCHAR(64), ' +
        'country VARCHAR(2), rank_bucket INT, sites INT)',
    );
    const base = (select: string, params: unknown[] = []) =>
      q(`INSERT INTO bench_trend_base ${select}`, params);
    await base(
      "SELECT 's', '', '', country, rank_bucket, COUNT(*) FROM bench_site_dims GROUP BY country, rank_bucket",
    );
    await base(
      "SELECT 't', slug, '', country, rank_bucket, SUM(sites) FROM bench_trend_versions GROUP BY slug, country, rank_bucket",
    );
    await base(
      "SELECT 'v', slug, version, country, rank_bucket, sites FROM bench_trend_versions WHERE version <> ''",
    );
    await base(
      "SELECT 'c', ?, '', d.country, d.rank_bucket, COUNT(DISTINCT t.site_id) " +
        'FROM site_technologies t JOIN bench_site_dims d ON d.id = t.site_id ' +
        `WHERE t.slug IN (${category.members.map(() => '?').join(', ')}) GROUP BY d.country, d.rank_bucket`,
      [name, ...category.members],
    );
    await base("SELECT 'f', slug, '', '', 0, SUM(sites) FROM bench_trend_versions GROUP BY slug");
    // Each month a little different (sites grow by 1% a month), so that months are not copies; the
    // fingerprint version switches in the seventh month.
    await q('CREATE TABLE bench_months (month VARCHAR(7), fingerprints VARCHAR(8), scale DECIMAL(5, 2))');
    await q(
      `INSERT INTO bench_months (month, fingerprints, scale) VALUES ${months.map(() => '(?, ?, ?)').join(', ')}`,
      months.flatMap((month, i) => [month, i < 7 ? 'fp-1' : 'fp-2', (1 + i / 100).toFixed(2)]),
    );
    await q(
      'INSERT INTO trend_counts (kind, name, month, version, country, rank_bucket, sites) ' +
        "SELECT b.kind, b.name, m.month, CASE WHEN b.kind = 'f' THEN m.fingerprints ELSE b.version END, " +
        `b.country, b.rank_bucket, CAST(b.sites * m.scale AS ${mysql ? 'SIGNED' : 'INTEGER'}) ` +
        'FROM bench_trend_base b CROSS JOIN bench_months m ORDER BY 1, 2, 3, 4, 5, 6',
    );
    await q(
      'INSERT INTO trend_totals (kind, name, month, version, rank_bucket, sites) ' +
        'SELECT kind, name, month, version, rank_bucket, SUM(sites) FROM trend_counts ' +
        'GROUP BY kind, name, month, version, rank_bucket',
    );
    for (const table of ['bench_months', 'bench_trend_base', 'bench_trend_versions', 'bench_site_dims'])
      await q(`DROP TABLE ${table}`);
  };
  if (mysql) await bulkLoad(db, [], build);
  else await build((sql, params) => db.query(sql, params));
  if (mysql) await db.query('ANALYZE TABLE trend_counts');
  else await db.query('ANALYZE');
  const [{ n }] = await db.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM trend_counts');
  console.log(
    `trend aggregates: ${Number(n)} rows for ${MONTHS + 1} months, made in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** TRENDS_BENCH_KEEP: whether this database holds a complete build of this size by these builders. */
async function keptBuild(db: Database): Promise<boolean> {
  const rows = await db
    .query<{ sites: number | string; builder: string }[]>('SELECT sites, builder FROM bench_trends_built')
    .catch(() => []);
  if (rows.length === 1 && Number(rows[0].sites) === SITES && rows[0].builder === BUILDER) return true;
  const [{ n }] = await db.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM sites');
  if (Number(n) > 0)
    throw new Error(
      'TRENDS_BENCH_KEEP: this database holds an unfinished or older build: drop it (see docs/performance.md, Trends) and run again',
    );
  return false;
}

async function measureReads(databaseUrl: string): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(config.DATABASE_URL);
  try {
    const services = await buildServices(config, db);
    const fingerprints = services.engine.fingerprints;
    const index = syntheticIndexPlan(fingerprints);
    const categoryName = fingerprints.categoryBySlug(index.category.slug)!.name;
    if (KEEP && (await keptBuild(db)))
      console.log(`kept synthetic index and aggregates reused (${SITES} sites)`);
    else {
      await buildSyntheticIndex(db, fingerprints, SITES);
      await buildAggregates(db, index.category, categoryName);
      if (KEEP) {
        await db.query('CREATE TABLE bench_trends_built (sites INT, builder VARCHAR(40))');
        await db.query('INSERT INTO bench_trends_built (sites, builder) VALUES (?, ?)', [SITES, BUILDER]);
      }
    }
    if (db.dialect === 'mysql') console.log(`MariaDB: ${await describeBufferPool(db)}`);
    const top = index.slugs[0];
    const mid = index.slugs[50];
    const window = { months: MONTHS, until: UNTIL };
    const mix: [string, () => Promise<unknown>][] = [
      ['top technology', () => services.trends.technology({ slug: top, ...window })],
      [
        'top, 2 countries',
        () => services.trends.technology({ slug: top, ...window, countries: ['AA', 'BC'] }),
      ],
      ['top, rank 100000', () => services.trends.technology({ slug: top, ...window, rank: '100000' })],
      ['top, version 4', () => services.trends.technology({ slug: top, ...window, version: '4' })],
      ['50th technology', () => services.trends.technology({ slug: mid, ...window })],
      ['largest category', () => services.trends.category({ slug: index.category.slug, ...window })],
    ];
    for (const [, call] of mix) await call();
    const sample = await services.trends.technology({ slug: top, ...window });
    const last = sample.months[sample.months.length - 1];
    console.log(
      `${top}, ${last.month}: ${last.sites} of ${last.analysedSites} sites (share ${last.share}), ` +
        `${last.versions.length} versions, fingerprints ${last.fingerprintsVersions.join(', ')}; ` +
        `switch marked in ${sample.months
          .filter((m) => m.fingerprintsChanged)
          .map((m) => m.month)
          .join(', ')}`,
    );
    const times = new Map<string, number[]>(mix.map(([label]) => [label, []]));
    for (let i = 0; i < REQUESTS; i++) {
      const [label, call] = mix[i % mix.length];
      const started = performance.now();
      await call();
      times.get(label)!.push(performance.now() - started);
    }
    const pct = (sorted: number[], p: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
    const all = [...times.values()].flat().sort((a, b) => a - b);
    console.log(
      `${db.dialect}, ${SITES} sites, ${REQUESTS} 12-month trend requests: p50 ${pct(all, 0.5).toFixed(2)} ms, ` +
        `p99 ${pct(all, 0.99).toFixed(2)} ms (load ${load()})`,
    );
    for (const [label, list] of times) {
      const sorted = [...list].sort((a, b) => a - b);
      console.log(
        `  ${label}: p50 ${pct(sorted, 0.5).toFixed(2)} ms, p99 ${pct(sorted, 0.99).toFixed(2)} ms`,
      );
    }
  } finally {
    await db.close();
  }
}

function technology(slug: string, version: string, category: number): DetectedTechnology {
  return {
    name: slug,
    slug,
    categories: [{ id: category, slug: `cat-${category}`, name: `Category ${category}`, priority: 1 }],
    versions: version ? [version] : [],
    version,
    confidence: 100,
    icon: '',
    website: '',
    implied: false,
    evidence: [],
  };
}

/** As record.bench.ts: three pages, 20 technologies (8 with versions) in 6 categories. */
function observation(host: string, site: number, at: Date): SiteObservation {
  const techs = Array.from({ length: 20 }, (_, t) =>
    technology(`tech-${(site + t) % 60}`, t < 8 ? `1.${t}.${site % 5}` : '', t % 6),
  );
  const pages = ['/', '/about', '/contact'].map((path, p) => ({
    url: `https://${host}${path}`,
    isRoot: p === 0,
    technologies: p === 0 ? techs : techs.filter((_, i) => i % (p + 2) === 0),
    languages: ['en'],
    title: p === 0 ? `Site ${site}` : undefined,
  }));
  return {
    url: `https://${host}/`,
    pages,
    technologies: techs,
    hostnames: [host],
    at,
    fingerprintsVersion: 'fp-bench',
  };
}

async function measureRecord(label: string, databaseUrl: string, newMonths: boolean): Promise<void> {
  const db = await Database.open(databaseUrl);
  try {
    const without = new SiteIndexService(db);
    Object.assign((without as unknown as { trends: object }).trends, { write: async () => undefined });
    const variants = [
      { name: 'with trends', index: new SiteIndexService(db), times: [] as number[], cpu: 0 },
      { name: 'without', index: without, times: [] as number[], cpu: 0 },
    ];
    for (let round = 0; round < RECORD_ROUNDS; round++) {
      const at = newMonths ? new Date(Date.UTC(2025, round, 10)) : new Date(Date.UTC(2025, 0, 10 + round));
      for (let slice = 0; slice < RECORD_SITES; slice += SLICE) {
        const order = (slice / SLICE + round) % 2 === 0 ? variants : [...variants].reverse();
        for (const variant of order) {
          for (let site = slice; site < Math.min(RECORD_SITES, slice + SLICE); site++) {
            const host = `${variant === variants[0] ? 'a' : 'b'}${site}.bench.test`;
            const started = performance.now();
            const cpu = process.cpuUsage();
            await variant.index.record(observation(host, site, at));
            if (round > 0) {
              variant.times.push(performance.now() - started);
              const used = process.cpuUsage(cpu);
              variant.cpu += (used.user + used.system) / 1000;
            }
          }
        }
      }
    }
    const mean = (t: number[]) => t.reduce((s, x) => s + x, 0) / t.length;
    const p50 = (t: number[]) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)];
    const [a, b] = variants;
    const [ca, cb] = variants.map((v) => v.cpu / v.times.length);
    console.log(
      `${label}, ${newMonths ? "every analysis its site's first of the month (every count raised)" : 're-analyses within a month'}: ` +
        `${a.times.length} records each; with trends ${mean(a.times).toFixed(3)} ms mean, ${p50(a.times).toFixed(3)} ms p50; ` +
        `without ${mean(b.times).toFixed(3)} ms mean, ${p50(b.times).toFixed(3)} ms p50; ` +
        `cost +${((mean(a.times) / mean(b.times) - 1) * 100).toFixed(1)}% (mean), +${((p50(a.times) / p50(b.times) - 1) * 100).toFixed(1)}% (p50); ` +
        `CPU of this process per record ${ca.toFixed(3)} vs ${cb.toFixed(3)} ms (+${((ca / cb - 1) * 100).toFixed(1)}%)`,
    );
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} (a shared machine: other work runs alongside)`);
  const dir = mkdtempSync(join(tmpdir(), 'trends-bench-'));
  try {
    for (const database of DATABASES) {
      if (database === 'sqlite') {
        for (const newMonths of [true, false])
          await measureRecord('SQLite', `sqlite:${join(dir, `record-${newMonths}.db`)}`, newMonths);
        await measureReads(
          `sqlite:${KEEP ? join(tmpdir(), `trends-bench-keep-${SITES}.db`) : join(dir, 'reads.db')}`,
        );
      } else if (database === 'mariadb') {
        for (const newMonths of [true, false])
          await withMariaDbDatabase(MARIADB, 'trends_record', (url) =>
            measureRecord('MariaDB', url, newMonths),
          );
        if (KEEP) await measureReads(await keptMariaDbDatabase(MARIADB, `trends_bench_keep_${SITES}`));
        else await withMariaDbDatabase(MARIADB, 'trends_bench', (url) => measureReads(url));
      } else throw new Error(`TRENDS_BENCH_DATABASES: unknown database ${database}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`load average at end: ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
