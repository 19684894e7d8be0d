/**
 * The reverse exposure query (issue 33 §3): "which indexed sites run a version this vulnerability
 * affects", on the 1,000,000-site synthetic index of bench/synthetic-index.ts (target p99 < 1 s for
 * a vulnerability touching a popular technology), on SQLite and MariaDB.
 *
 * The most common technology of the synthetic index becomes jquery (the slugs swap names), and its
 * rows get a realistic spread of versions: 60 jQuery releases from 1.4.2 to 3.7.1, later ones more
 * common, 15% without a version, 5% running a second release at once (a theme's and a plugin's
 * copies). Vulnerability records are written as the import writes them:
 * CVE-2020-11022 (>= 1.2, < 3.5.0: most jQuery sites), its OSV alias GHSA-gxr4-xjj5-5px2 (the
 * same range in semver), and CVE-2012-6708 (two exact versions: a rare match). Then
 * EXPOSURE_BENCH_REQUESTS calls of the exposure service's page read (what REST and GraphQL call,
 * metering and HTTP not included) in a mix: first pages, deep pages (after a random site), with two
 * countries, within the top 10,000 (certain only, and certain or possible) and the top 1,000, limits
 * 100 and 1000, the rare vulnerability, and the possibly affected sites (jquery without a version);
 * p50 and p99 ms.
 *
 * On MariaDB the index is built with the bulk load of bench/mariadb-bulk-load.ts, jquery's versions
 * included (before the secondary indexes are built), and each case's statements can also be timed
 * by the server (ANALYZE FORMAT=JSON), which the machine's load sways less than the wall time.
 *
 *   npm run bench:exposure  (EXPOSURE_BENCH_SITES=1000000, EXPOSURE_BENCH_REQUESTS=300,
 *     EXPOSURE_BENCH_DATABASES=sqlite,mariadb, EXPOSURE_BENCH_MARIADB_URL=mysql://root@127.0.0.1:3306/,
 *     EXPOSURE_BENCH_KEEP=1 to keep the built index (`exposure_bench_keep_<sites>` on MariaDB,
 *     `exposure-bench-keep-<sites>.db` in the temporary directory for SQLite) and reuse it next time,
 *     so that a change can be measured before and after on the same data;
 *     EXPOSURE_BENCH_SQLITE_FILE=/path/exposure.db: SQLite only, kept and reused the same way;
 *     EXPOSURE_BENCH_ANALYZE=3: MariaDB only, after the mix, that many requests of each case with
 *     every statement run as ANALYZE FORMAT=JSON, the server's time summed per request)
 */
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/platform/config';
import { buildServices } from '../src/services/services';
import type { AffectedSpec } from '../src/services/vulns/affected-ranges';
import { Database } from '../src/storage/database';
import type { BulkQuery } from './mariadb-bulk-load';
import { describeBufferPool, keptMariaDbDatabase, withMariaDbDatabase } from './mariadb-scratch';
import { buildSyntheticIndex } from './synthetic-index';

const SITES = Math.max(1000, Number(process.env.EXPOSURE_BENCH_SITES ?? 1_000_000));
const REQUESTS = Math.max(20, Number(process.env.EXPOSURE_BENCH_REQUESTS ?? 300));
const DATABASES = (process.env.EXPOSURE_BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
const MARIADB = process.env.EXPOSURE_BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const SQLITE_FILE = process.env.EXPOSURE_BENCH_SQLITE_FILE;
/** Keep the built index and reuse it in the next run of the same size. */
const KEEP = process.env.EXPOSURE_BENCH_KEEP === '1';
const ANALYZED = Math.max(0, Number(process.env.EXPOSURE_BENCH_ANALYZE ?? 0));

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** jQuery releases, oldest first; the n-th about n times as common as the first. */
const RELEASES = [
  ...[
    '1.4.2',
    '1.4.4',
    '1.5.1',
    '1.5.2',
    '1.6.1',
    '1.6.2',
    '1.6.4',
    '1.7',
    '1.7.1',
    '1.7.2',
    '1.8.0',
    '1.8.2',
  ],
  ...[
    '1.8.3',
    '1.9.0',
    '1.9.1',
    '1.10.1',
    '1.10.2',
    '1.11.0',
    '1.11.1',
    '1.11.2',
    '1.11.3',
    '1.12.0',
    '1.12.3',
  ],
  ...['1.12.4', '2.0.3', '2.1.0', '2.1.1', '2.1.3', '2.1.4', '2.2.0', '2.2.2', '2.2.3', '2.2.4', '3.0.0'],
  ...['3.1.0', '3.1.1', '3.2.0', '3.2.1', '3.3.0', '3.3.1', '3.4.0', '3.4.1', '3.5.0', '3.5.1', '3.6.0'],
  ...['3.6.1', '3.6.2', '3.6.3', '3.6.4', '3.7.0', '3.7.1', '1.3.2', '1.4.1', '1.6.3', '2.1.2', '3.0.0-rc1'],
  '4.0.0-beta',
  '3.2',
];

/** `WHEN … THEN` a release for each site, weights 1..n over the releases (later ones more common). */
function releaseCases(hash: number): string {
  const total = (RELEASES.length * (RELEASES.length + 1)) / 2;
  let upTo = 0;
  return RELEASES.map((version, i) => {
    upTo += i + 1;
    return `WHEN (site_id * ${hash}) % ${total} < ${upTo} THEN '${version}'`;
  }).join(' ');
}

/**
 * The second jQuery of 5% of its sites (SECOND_VERSION_EVERY): a release drawn from the same spread
 * by another hash (the same one drawn twice stays one version).
 */
const SECOND_RELEASE = { slug: 'jquery', version: `CASE ${releaseCases(104729)} ELSE '3.6.0' END` };

/** Makes the most common technology jquery and gives its rows the releases' spread, 15% without a version. */
async function prepare(q: BulkQuery, popular: string): Promise<void> {
  const t = performance.now();
  if (popular !== 'jquery') {
    await q("UPDATE site_technologies SET slug = '__jquery' WHERE slug = 'jquery'");
    await q("UPDATE site_technologies SET slug = 'jquery' WHERE slug = ?", [popular]);
    await q("UPDATE site_technologies SET slug = ? WHERE slug = '__jquery'", [popular]);
  }
  await q(
    `UPDATE site_technologies SET version = CASE WHEN site_id % 20 < 3 THEN '' ${releaseCases(7919)} ELSE '' END ` +
      "WHERE slug = 'jquery'",
  );
  const [{ n }] = (await q("SELECT COUNT(*) AS n FROM site_technologies WHERE slug = 'jquery'")) as {
    n: number | string;
  }[];
  console.log(
    `jquery on ${Number(n)} sites, ${RELEASES.length} versions; prepared in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}

const cpe = (spec: Omit<Extract<AffectedSpec, { kind: 'cpe' }>, 'kind'>): string =>
  JSON.stringify({ kind: 'cpe', ...spec });

async function measure(databaseUrl: string): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(databaseUrl);
  const services = await buildServices(config, db);
  try {
    if (await keptBuild(db)) {
      // Opening it ran any newer migration: its indexes need the planner's statistics too.
      const t = performance.now();
      await db.query(
        db.dialect === 'sqlite'
          ? 'ANALYZE'
          : 'ANALYZE TABLE sites, site_technologies, site_technology_live_versions',
      );
      console.log(
        `reusing the index of ${databaseUrl} (analysed in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
      );
    } else {
      await buildSyntheticIndex(
        db,
        services.engine.fingerprints,
        SITES,
        (q, plan) => prepare(q, plan.slugs[0]),
        SECOND_RELEASE,
      );
      const [{ two }] = await db.query<{ two: number | string }[]>(
        'SELECT COUNT(*) AS two FROM (SELECT site_id FROM site_technology_live_versions ' +
          "WHERE slug = 'jquery' GROUP BY site_id HAVING COUNT(*) > 1) m",
      );
      console.log(`jquery: ${Number(two)} sites running two versions`);
      // The records last: a database holding them holds a whole build.
      await writeRecords(services);
    }
    if (db.dialect === 'mysql') console.log(`MariaDB: ${await describeBufferPool(db)}`);
    await runMix(db, services);
  } finally {
    services.fingerprints.stop();
    await db.close();
  }
}

/** Whether this database holds a whole build (its records written last) of this size; refuses a half one. */
async function keptBuild(db: Database): Promise<boolean> {
  const [{ records }] = await db.query<{ records: number | string }[]>(
    'SELECT COUNT(*) AS records FROM vulnerabilities',
  );
  const [{ sites }] = await db.query<{ sites: number | string }[]>('SELECT COUNT(*) AS sites FROM sites');
  if (Number(records) > 0 && Number(sites) === SITES) return true;
  if (Number(sites) > 0)
    throw new Error(
      `this database holds ${Number(sites)} sites and ${Number(records)} records, not a whole build of ${SITES} sites: ` +
        'drop it (see docs/performance.md, Exposure) and run again',
    );
  return false;
}

async function writeRecords(services: Awaited<ReturnType<typeof buildServices>>): Promise<void> {
  {
    const at = new Date('2024-11-21T04:56:37Z');
    const base = {
      summary: 'bench',
      severity: 'MEDIUM',
      scoreTenths: 61,
      vector: null,
      publishedAt: at,
      modifiedAt: at,
      references: [],
    };
    await services.vulnerabilities.repository.writeBatch(
      [
        {
          ...base,
          id: 'CVE-2020-11022',
          source: 'nvd',
          aliases: [],
          products: [
            {
              product: 'cpe:jquery:jquery',
              spec: cpe({ version: '*', startIncluding: '1.2', endExcluding: '3.5.0' }),
            },
          ],
        },
        {
          ...base,
          id: 'GHSA-gxr4-xjj5-5px2',
          source: 'osv',
          aliases: ['CVE-2020-11022'],
          products: [
            {
              product: 'osv:npm:jquery',
              spec: JSON.stringify({
                kind: 'osv',
                scheme: 'semver',
                ranges: [[{ introduced: '1.2.0' }, { fixed: '3.5.0' }]],
                versions: [],
              }),
            },
          ],
        },
        {
          ...base,
          id: 'CVE-2012-6708',
          source: 'nvd',
          aliases: [],
          products: [
            { product: 'cpe:jquery:jquery', spec: cpe({ version: '1.7.2' }) },
            { product: 'cpe:jquery:jquery', spec: cpe({ version: '1.8.3' }) },
          ],
        },
      ],
      at,
    );
  }
}

async function runMix(db: Database, services: Awaited<ReturnType<typeof buildServices>>): Promise<void> {
  {
    const [{ top }] = await db.query<{ top: number }[]>('SELECT MAX(id) AS top FROM sites');
    const mix: {
      name: string;
      id: string;
      query: () => Record<string, unknown>;
      times: number[];
      sites: number;
    }[] = [
      { name: 'first page, 100', id: 'CVE-2020-11022', query: () => ({ first: 100 }), times: [], sites: 0 },
      {
        name: 'by alias, 100',
        id: 'GHSA-gxr4-xjj5-5px2',
        query: () => ({ first: 100 }),
        times: [],
        sites: 0,
      },
      {
        name: 'deep page, 100',
        id: 'CVE-2020-11022',
        query: () => ({ first: 100, after: String(Math.floor(Math.random() * Number(top))) }),
        times: [],
        sites: 0,
      },
      { name: 'first page, 1000', id: 'CVE-2020-11022', query: () => ({ first: 1000 }), times: [], sites: 0 },
      {
        name: 'countries DE,FR',
        id: 'CVE-2020-11022',
        query: () => ({ first: 100, countries: ['DE', 'FR'] }),
        times: [],
        sites: 0,
      },
      {
        name: 'rank top 10000',
        id: 'CVE-2020-11022',
        query: () => ({ first: 100, rank: '10000' }),
        times: [],
        sites: 0,
      },
      { name: 'rare (2 versions)', id: 'CVE-2012-6708', query: () => ({ first: 100 }), times: [], sites: 0 },
      {
        name: 'rank 10000, any',
        id: 'CVE-2020-11022',
        query: () => ({ first: 100, rank: '10000', match: 'any' }),
        times: [],
        sites: 0,
      },
      {
        name: 'rank 1000, any, 1000',
        id: 'CVE-2020-11022',
        query: () => ({ first: 1000, rank: '1000', match: 'any' }),
        times: [],
        sites: 0,
      },
      {
        name: 'possible, 100',
        id: 'CVE-2020-11022',
        query: () => ({ first: 100, match: 'possible' }),
        times: [],
        sites: 0,
      },
    ];
    const request = async (kind: (typeof mix)[number]) => {
      const named = await services.exposure.vulnerability(kind.id);
      return services.exposure.page(await named.pairs(), kind.query() as never);
    };
    const all: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const kind = mix[i % mix.length];
      const started = performance.now();
      const page = await request(kind);
      const ms = performance.now() - started;
      kind.times.push(ms);
      kind.sites += page.sites.length;
      all.push(ms);
    }
    const pct = (t: number[], p: number) =>
      [...t].sort((a, b) => a - b)[Math.min(t.length - 1, Math.floor(t.length * p))];
    console.log(
      `${db.dialect}, ${SITES} sites: ${all.length} reverse queries, p50 ${pct(all, 0.5).toFixed(1)} ms, ` +
        `p99 ${pct(all, 0.99).toFixed(1)} ms (load ${load()})`,
    );
    for (const kind of mix)
      console.log(
        `  ${kind.name.padEnd(20)} p50 ${pct(kind.times, 0.5).toFixed(1)} ms, p99 ${pct(kind.times, 0.99).toFixed(1)} ms, ` +
          `${(kind.sites / kind.times.length).toFixed(0)} sites a page`,
      );
    if (ANALYZED > 0 && db.dialect === 'mysql') {
      console.log(
        `server time (ANALYZE FORMAT=JSON, summed over a request's statements), ${ANALYZED} requests each:`,
      );
      for (const kind of mix) {
        const served = await serverTimes(db, ANALYZED, () => request(kind));
        console.log(
          `  ${kind.name.padEnd(20)} ${served.requests.map((ms) => ms.toFixed(1)).join(' / ')} ms; ` +
            `slowest statement ${served.slowest.ms.toFixed(1)} ms: ${served.slowest.sql.slice(0, 160)}`,
        );
      }
    }
  }
}

/**
 * Runs `request` `times` times with every SELECT it issues first run as ANALYZE FORMAT=JSON (then
 * for its rows as usual): per request the server's optimisation and execution time of its
 * statements, and the slowest statement seen.
 */
async function serverTimes(
  db: Database,
  times: number,
  request: () => Promise<unknown>,
): Promise<{ requests: number[]; slowest: { ms: number; sql: string } }> {
  const plain = db.query.bind(db);
  const requests: number[] = [];
  let slowest = { ms: 0, sql: '' };
  let spent = 0;
  db.query = (async (sql: string, parameters: unknown[] = []) => {
    if (/^\s*SELECT/i.test(sql)) {
      const [row] = await plain<Record<string, string>[]>(`ANALYZE FORMAT=JSON ${sql}`, parameters);
      const ms = serverMs(JSON.parse(Object.values(row)[0]) as AnalyzeNode);
      spent += ms;
      if (ms > slowest.ms) slowest = { ms, sql };
    }
    return plain(sql, parameters);
  }) as Database['query'];
  try {
    for (let i = 0; i < times; i++) {
      spent = 0;
      await request();
      requests.push(spent);
    }
  } finally {
    db.query = plain;
  }
  return { requests, slowest };
}

interface AnalyzeNode {
  query_optimization?: { r_total_time_ms?: number };
  query_block?: { r_total_time_ms?: number; union_result?: { query_specifications?: AnalyzeNode[] } };
}

/** Optimisation and execution time of one ANALYZE (a UNION's: its parts' execution times summed). */
function serverMs(analyze: AnalyzeNode): number {
  const block = analyze.query_block;
  const parts = block?.union_result?.query_specifications ?? [];
  const executed =
    block?.r_total_time_ms ?? parts.reduce((sum, part) => sum + (part.query_block?.r_total_time_ms ?? 0), 0);
  return (analyze.query_optimization?.r_total_time_ms ?? 0) + executed;
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} (a shared machine: other work runs alongside)`);
  if (SQLITE_FILE) {
    await measure(`sqlite:${SQLITE_FILE}`);
    console.log(`load average at end: ${load()}`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'exposure-bench-'));
  try {
    for (const database of DATABASES) {
      if (database === 'sqlite')
        await measure(
          `sqlite:${KEEP ? join(tmpdir(), `exposure-bench-keep-${SITES}.db`) : join(dir, 'exposure.db')}`,
        );
      else if (database === 'mariadb' && KEEP)
        await measure(await keptMariaDbDatabase(MARIADB, `exposure_bench_keep_${SITES}`));
      else if (database === 'mariadb')
        await withMariaDbDatabase(MARIADB, 'exposure_bench', (url) => measure(url));
      else throw new Error(`EXPOSURE_BENCH_DATABASES: unknown database ${database}`);
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
