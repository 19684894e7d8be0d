/**
 * The reverse exposure query (issue 33 §3): "which indexed sites run a version this vulnerability
 * affects", on the 1,000,000-site synthetic index of bench/synthetic-index.ts (target p99 < 1 s for
 * a vulnerability touching a popular technology), on SQLite and MariaDB.
 *
 * The most common technology of the synthetic index becomes jquery (the slugs swap names), and its
 * rows get a realistic spread of versions: 60 jQuery releases from 1.4.2 to 3.7.1, later ones more
 * common, 15% without a version. Vulnerability records are written as the import writes them:
 * CVE-2020-11022 (>= 1.2, < 3.5.0: most jQuery sites), its OSV alias GHSA-gxr4-xjj5-5px2 (the
 * same range in semver), and CVE-2012-6708 (two exact versions: a rare match). Then
 * EXPOSURE_BENCH_REQUESTS calls of the exposure service's page read (what REST and GraphQL call,
 * metering and HTTP not included) in a mix: first pages, deep pages (after a random site), with two
 * countries, within the top 10,000 (certain only, and certain or possible) and the top 1,000, limits
 * 100 and 1000, the rare vulnerability, and the possibly affected sites (jquery without a version);
 * p50 and p99 ms.
 *
 *   npm run bench:exposure  (EXPOSURE_BENCH_SITES=1000000, EXPOSURE_BENCH_REQUESTS=300,
 *     EXPOSURE_BENCH_DATABASES=sqlite,mariadb, EXPOSURE_BENCH_MARIADB_URL=mysql://root@127.0.0.1:3306/,
 *     EXPOSURE_BENCH_SQLITE_FILE=/path/exposure.db: SQLite only, kept afterwards and reused when it
 *     already holds the index, so that a change can be measured before and after on the same data)
 */
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/platform/config';
import { buildServices } from '../src/services/services';
import type { AffectedSpec } from '../src/services/vulns/affected-ranges';
import { Database } from '../src/storage/database';
import { withMariaDbDatabase } from './mariadb-scratch';
import { buildSyntheticIndex } from './synthetic-index';

const SITES = Math.max(1000, Number(process.env.EXPOSURE_BENCH_SITES ?? 1_000_000));
const REQUESTS = Math.max(20, Number(process.env.EXPOSURE_BENCH_REQUESTS ?? 300));
const DATABASES = (process.env.EXPOSURE_BENCH_DATABASES ?? 'sqlite,mariadb').split(',').map((d) => d.trim());
const MARIADB = process.env.EXPOSURE_BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const SQLITE_FILE = process.env.EXPOSURE_BENCH_SQLITE_FILE;

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

async function prepare(db: Database, popular: string): Promise<void> {
  const t = performance.now();
  if (popular !== 'jquery') {
    await db.query("UPDATE site_technologies SET slug = '__jquery' WHERE slug = 'jquery'");
    await db.query("UPDATE site_technologies SET slug = 'jquery' WHERE slug = ?", [popular]);
    await db.query("UPDATE site_technologies SET slug = ? WHERE slug = '__jquery'", [popular]);
  }
  // Weights 1..n over the releases (later ones more common), 15% without a version.
  const total = (RELEASES.length * (RELEASES.length + 1)) / 2;
  const cases: string[] = [];
  let upTo = 0;
  RELEASES.forEach((version, i) => {
    upTo += i + 1;
    cases.push(`WHEN (site_id * 7919) % ${total} < ${upTo} THEN '${version}'`);
  });
  await db.query(
    `UPDATE site_technologies SET version = CASE WHEN site_id % 20 < 3 THEN '' ${cases.join(' ')} ELSE '' END ` +
      "WHERE slug = 'jquery'",
  );
  const [{ n }] = await db.query<{ n: number }[]>(
    "SELECT COUNT(*) AS n FROM site_technologies WHERE slug = 'jquery'",
  );
  console.log(
    `jquery on ${Number(n)} sites, ${RELEASES.length} versions; prepared in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  if (db.dialect === 'sqlite') await db.query('ANALYZE');
  else await db.query('ANALYZE TABLE site_technologies');
}

const cpe = (spec: Omit<Extract<AffectedSpec, { kind: 'cpe' }>, 'kind'>): string =>
  JSON.stringify({ kind: 'cpe', ...spec });

async function measure(databaseUrl: string): Promise<void> {
  const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl });
  const db = await Database.open(databaseUrl);
  const services = await buildServices(config, db);
  try {
    const [{ built }] = await db.query<{ built: number }[]>('SELECT COUNT(*) AS built FROM vulnerabilities');
    if (Number(built) > 0) {
      // Opening it ran any newer migration: its indexes need the planner's statistics too.
      const t = performance.now();
      await db.query(db.dialect === 'sqlite' ? 'ANALYZE' : 'ANALYZE TABLE sites, site_technologies');
      console.log(
        `reusing the index of ${databaseUrl} (analysed in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
      );
    } else await prepare(db, (await buildSyntheticIndex(db, services.engine.fingerprints, SITES)).slugs[0]);
    if (Number(built) === 0) await writeRecords(services);
    await runMix(db, services);
  } finally {
    services.fingerprints.stop();
    await db.close();
  }
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
    const all: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const kind = mix[i % mix.length];
      const started = performance.now();
      const named = await services.exposure.vulnerability(kind.id);
      const page = await services.exposure.page(await named.pairs(), kind.query() as never);
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
  }
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
      if (database === 'sqlite') await measure(`sqlite:${join(dir, 'exposure.db')}`);
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
