/**
 * Lead-list benchmark on a synthetic index, generated with set-based SQL: LISTS_BENCH_SITES sites
 * (default 200,000; the target is 1,000,000), about 8 technologies each drawn from 500 real
 * slugs with a Zipf-like spread (1/rank), countries, TLDs, languages, imported traffic ranks. Then,
 * through the real service (HTTP, the list job in the embedded worker, files written at Ready):
 *
 * 1. a 2-technology list with 3 filters (countries, tlds, excludeMultilingual): seconds to Ready;
 * 2. a 100-technology category list (categories: [a category with 100+ members]): seconds to Ready;
 * 3. the export of a list of ~100,000 rows (subset) finalized and downloaded: seconds, ZIP size, and
 *    the process's peak RSS (it holds the whole service and the generated index's cache too).
 *
 * Ready includes writing the sample and the full ZIP file. SQLite by default (a temporary file);
 * LISTS_BENCH_DATABASE_URL=mysql://… runs it on MariaDB (the database must be empty).
 *
 *   npm run bench:lists      (LISTS_BENCH_SITES=N)
 */
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config';
import { LeadListEntity } from '../src/entities';
import type { ListRequest } from '../src/services/lead-list-request';
import { startService } from '../src/service-runtime';

const SITES = Math.max(1000, Number(process.env.LISTS_BENCH_SITES ?? 200_000));
const SLUGS = 500;
const BUCKETS = 10_000;
const SLOTS = 8;

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const seconds = (from: number): string => ((performance.now() - from) / 1000).toFixed(2);

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), 'lists-bench-'));
  const url = process.env.LISTS_BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const running = await startService(
    loadConfig({
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      LISTS_DIR: join(dir, 'lists'),
      JOB_POLL_INTERVAL_MS: '20',
      JOB_LEASE_SECONDS: '600',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
    }),
  );
  const { services } = running;
  const db = services.db;
  const mysql = db.dialect === 'mysql';
  try {
    // ---- the synthetic index ----
    const fingerprints = services.engine.fingerprints;
    const category = fingerprints.categories
      .map((c) => ({ slug: c.slug, members: fingerprints.technologiesInCategory(c.slug).map((t) => t.slug) }))
      .filter((c) => c.members.length >= 100)
      .sort((a, b) => b.members.length - a.members.length)[0];
    const others = fingerprints.technologies.map((t) => t.slug).filter((s) => !category.members.includes(s));
    // Popular slugs first (1/rank): the category's members are spread over the ranks.
    const slugs: string[] = [];
    for (let i = 0; slugs.length < SLUGS; i++) {
      if (i % 5 === 0 && category.members[i / 5] !== undefined) slugs.push(category.members[i / 5]);
      else slugs.push(others.shift()!);
    }
    const harmonic = slugs.reduce((sum, _, i) => sum + 1 / (i + 1), 0);
    const zipf: [number, string][] = [];
    slugs.forEach((slug, i) => {
      const count = Math.max(1, Math.round((BUCKETS / harmonic) * (1 / (i + 1))));
      for (let c = 0; c < count && zipf.length < BUCKETS; c++) zipf.push([zipf.length, slug]);
    });
    while (zipf.length < BUCKETS) zipf.push([zipf.length, slugs[SLUGS - 1 - (zipf.length % 50)]]);

    let t = performance.now();
    await db.query('CREATE TABLE bench_zipf (bucket INT PRIMARY KEY, slug VARCHAR(120))');
    for (let i = 0; i < zipf.length; i += 500) {
      const part = zipf.slice(i, i + 500);
      await db.query(
        `INSERT INTO bench_zipf (bucket, slug) VALUES ${part.map(() => '(?, ?)').join(',')}`,
        part.flat(),
      );
    }
    const digits = Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ');
    const places = Math.ceil(Math.log10(SITES));
    const number = Array.from({ length: places }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
    const from = Array.from({ length: places }, (_, i) => `(${digits}) d${i}`).join(', ');
    const concat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
    const now = new Date();
    const stamp = mysql ? now : now.toISOString().replace('T', ' ').replace('Z', '');
    const old = mysql ? new Date(Date.UTC(2024, 0, 1)) : '2024-01-01 00:00:00.000';
    await db.query(
      `INSERT INTO sites (hostname, domain, tld, is_subdomain, language, languages, country, title, hits,
         traffic_rank, rank_source, industry, company_size, language_count, sets_mask, enriched_at,
         crawl_attempted_at, first_seen_at, last_analyzed_at)
       SELECT ${concat("'s'", 'n', "CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END")},
              ${concat("'s'", 'n', "CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END")},
              CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END, 0,
              CASE n % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, '[]',
              CASE n % 10 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'GB' ELSE 'US' END, NULL, n % 1000,
              CASE WHEN n % 10 < 7 THEN n + 1 ELSE NULL END, CASE WHEN n % 10 < 7 THEN 'import' ELSE NULL END,
              NULL, NULL, CASE WHEN n % 13 = 0 THEN 2 ELSE 1 END, n % 4096, ?, ?, ?, ?
         FROM (SELECT ${number} AS n FROM ${from}) g WHERE n < ?`,
      [stamp, stamp, old, stamp, SITES],
    );
    await db.query(
      `INSERT INTO site_languages (language, site_id)
       SELECT CASE id % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, id FROM sites`,
    );
    const ignore = mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    for (let j = 0; j < SLOTS; j++) {
      const [prime, offset] = [
        [7919, 13],
        [104729, 71],
        [1299709, 5],
        [15485863, 977],
        [32452843, 31],
        [49979687, 7],
        [67867967, 3],
        [86028121, 1],
      ][j];
      await db.query(
        `${ignore} INTO site_technologies (site_id, slug, name, version, version_key, versions, confidence,
           root_path, first_seen_at, confirmed_at)
         SELECT s.id, z.slug, z.slug,
                CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '3.6.0' WHEN 2 THEN '4.9.1' ELSE '5.2' END,
                CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '000003.000006.000000' WHEN 2 THEN '000004.000009.000001'
                     ELSE '000005.000002' END,
                '[]', 100, 1, ?, ?
           FROM sites s JOIN bench_zipf z ON z.bucket = (s.id * ${prime} + ${offset}) % ${BUCKETS}`,
        [old, stamp],
      );
    }
    const [{ n: techRows }] = (await db.query('SELECT COUNT(*) AS n FROM site_technologies')) as {
      n: number;
    }[];
    console.log(
      `synthetic index: ${SITES} sites, ${Number(techRows)} site technologies (${(Number(techRows) / SITES).toFixed(1)}/site), ` +
        `${SLUGS} slugs, generated in ${seconds(t)} s on ${db.dialect}`,
    );
    if (db.dialect === 'sqlite') await db.query('ANALYZE');
    else await db.query('ANALYZE TABLE sites, site_technologies, site_languages');

    // ---- lists through the service ----
    const { apiKey } = await services.accounts.createAccount({
      name: 'Bench',
      email: 'bench@example.com',
      plan: 'business',
      credits: 10_000_000,
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(running.url + path, {
        method,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const ready = async (label: string, request: Record<string, unknown>) => {
      const started = performance.now();
      const created = await call('POST', '/v2/lists', request);
      if (created.status !== 200)
        throw new Error(`${label}: ${created.status} ${JSON.stringify(created.body)}`);
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const got = await call('GET', `/v2/lists/${created.body.id}`);
        if (got.status === 429) continue;
        if (got.body.status === 'Calculating') continue;
        const total = seconds(started);
        const rows = Object.values(got.body.rows as Record<string, number>).reduce((a, b) => a + b, 0);
        // The SQL alone, run again on the same list (the calculation is idempotent): the rest of
        // the time to Ready is writing the sample and full ZIP files.
        const list = await db.manager.findOneByOrFail(LeadListEntity, { id: got.body.id as string });
        const again = performance.now();
        await services.lists.calculator.calculate(
          list.id,
          JSON.parse(list.request) as ListRequest,
          new Date(),
        );
        console.log(
          `${label}: ${got.body.status} in ${total} s (the SQL calculation alone: ${seconds(again)} s) — ` +
            `${Object.keys(got.body.rows).length} technologies, ${rows} rows, ${got.body.websites} websites`,
        );
        return got.body;
      }
    };
    await ready('2 technologies + 3 filters (countries, tlds, excludeMultilingual)', {
      technologies: [{ slug: slugs[0] }, { slug: slugs[3], version: '4', operator: '>=' }],
      countries: ['US', 'DE'],
      tlds: ['.com', '.de'],
      excludeMultilingual: true,
    });
    await ready(`category ${category.slug} (top 100 of ${category.members.length} technologies)`, {
      categories: [category.slug],
    });
    const big = await ready('export list (subset 100,000 of one technology)', {
      technologies: [{ slug: slugs[0] }],
      subset: 100_000,
      sets: ['meta', 'events'],
    });
    t = performance.now();
    const done = await call('POST', `/v2/lists/${big.id}`, { spendCredits: big.totalCredits });
    const zip = await fetch(new URL(done.body.url as string, running.url));
    let bytes = 0;
    for await (const chunk of zip.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    console.log(
      `export: finalize + download of ${big.websites} rows in ${seconds(t)} s, full.zip ${(bytes / 1_048_576).toFixed(1)} MB; ` +
        `peak RSS of the whole process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
    console.log(`load average at end: ${load()}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
