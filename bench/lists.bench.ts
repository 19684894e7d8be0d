/**
 * Lead-list benchmark on a synthetic index, generated with set-based SQL: LISTS_BENCH_SITES sites
 * (default 200,000; the target is 1,000,000), about 8 technologies each drawn from 500 real
 * slugs with a Zipf-like spread (1/rank), countries, TLDs, languages, imported traffic ranks. Then,
 * through the real service (HTTP, the list job in the embedded worker, files written at Ready):
 *
 * 1. a 2-technology list with 3 filters (countries, tlds, excludeMultilingual): seconds to Ready;
 * 2. a 100-technology category list (categories: [a category with 100+ members]): seconds to Ready;
 * 3. the export of a list of ~100,000 rows (subset) finalized and downloaded: seconds, ZIP size, and
 *    peak RSS.
 *
 * The lists are calculated and their files written by a separate `npm run worker` process (the API
 * in this process runs with EMBEDDED_WORKER=false), as in a deployment with workers of their own;
 * the worker's peak RSS is the memory the calculation and the streamed export needed. This
 * process's peak RSS holds the API and the generation of the synthetic index as well.
 *
 * Ready includes writing the sample ZIP file; the full ZIP is written by the list.files job right
 * after (its time is shown too). SQLite by default (a temporary file); LISTS_BENCH_DATABASE_URL=
 * mysql://… runs it on MariaDB (the database must be empty), or sqlite:/path on a given file.
 * LISTS_BENCH_REUSE=1 with a database that already holds a synthetic index (of an earlier run, e.g.
 * generated once at 1,000,000 sites) uses it as it is instead of generating one.
 *
 *   npm run bench:lists      (LISTS_BENCH_SITES=N)
 */
import './crawl/quiet-logs';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/platform/config';
import { LeadListEntity } from '../src/storage/entities';
import type { ListRequest } from '../src/services/lists/lead-list-request';
import { startService } from '../src/service-runtime';
import type { Database } from '../src/storage/database';
import type { Fingerprints } from '../src/detection';
import { MALLOC_TUNING } from '../src/platform/malloc-tuning';
import { describeBufferPool } from './mariadb-scratch';
import { buildSyntheticIndex, type SyntheticIndex } from './synthetic-index';

const SITES = Math.max(1000, Number(process.env.LISTS_BENCH_SITES ?? 200_000));

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const seconds = (from: number): string => ((performance.now() - from) / 1000).toFixed(2);

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), 'lists-bench-'));
  const url = process.env.LISTS_BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const settings = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATABASE_URL: url,
    LISTS_DIR: join(dir, 'lists'),
    LISTS_URL_SECRET: 'lists-bench-url-secret-0123456789',
    JOB_POLL_INTERVAL_MS: '20',
    JOB_LEASE_SECONDS: '600',
    TRAFFIC_RANK_REFRESH_MINUTES: '0',
    RECRAWL_AFTER_DAYS: '0',
  };
  const running = await startService(
    loadConfig({ ...settings, PORT: '0', HOST: '127.0.0.1', EMBEDDED_WORKER: 'false' }),
  );
  let worker: ReturnType<typeof spawn> | undefined;
  const { services } = running;
  const db = services.db;
  try {
    const [{ n: existing }] = (await db.query('SELECT COUNT(*) AS n FROM sites')) as { n: number }[];
    const { slugs, category } =
      process.env.LISTS_BENCH_REUSE === '1' && Number(existing) > 0
        ? await reuseIndex(db, services.engine.fingerprints, Number(existing))
        : await buildSyntheticIndex(db, services.engine.fingerprints, SITES);

    if (db.dialect !== 'sqlite') console.log(`MariaDB: ${await describeBufferPool(db)}`);
    console.log(
      `peak RSS before any list (service, detection engine, index): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
    // A bulk generation leaves SQLite's WAL gigabytes long: fold it into the database first, as
    // a deployment that filled its index over time would have it, before a second process opens it.
    if (db.dialect === 'sqlite') await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
    // The worker starts once the index exists (its migrations are then long done).
    // As `npm run worker` starts it: with the malloc settings of its script (the environment's own
    // values first, as the script's ${VAR:-default} does) and WORKER_SQLITE_CACHE_MB.
    const workerEnv: NodeJS.ProcessEnv = { ...MALLOC_TUNING, ...process.env, ...settings };
    worker = spawn(process.execPath, [join(__dirname, '..', 'src', 'worker-main.js')], {
      env: workerEnv,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const workerPid = worker.pid!;
    await new Promise((resolve) => setTimeout(resolve, 5000));
    console.log(
      `worker process started: RSS ${workerMemory(workerPid)} (` +
        [
          `WORKER_SQLITE_CACHE_MB=${loadConfig(workerEnv).WORKER_SQLITE_CACHE_MB}`,
          ...Object.keys(MALLOC_TUNING).map((name) => `${name}=${workerEnv[name] ?? 'unset'}`),
        ].join(' ') +
        ')',
    );

    // ---- lists through the service ----
    const { apiKey } = await services.accounts.createAccount({
      name: 'Bench',
      email: `bench-${Date.now()}@example.com`,
      plan: 'business',
      credits: 10_000_000,
    });
    const call = async (method: string, path: string, body?: unknown) => {
      const send = () =>
        fetch(running.url + path, {
          method,
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      // Once more on a reset: this process blocks its own event loop for seconds while it runs a
      // calculation again (below), and a kept-alive connection may be closed by the server meanwhile.
      const res = await send().catch(send);
      return { status: res.status, body: (await res.json()) as ListAnswer };
    };
    const ready = async (label: string, request: Record<string, unknown>) => {
      resetPeak(workerPid);
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
        const fullFrom = performance.now();
        while (got.body.status === 'Ready' && !services.lists.files.exists(got.body.id as string, 'full.zip'))
          await new Promise((resolve) => setTimeout(resolve, 50));
        const full = seconds(fullFrom);
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
          `${label}: ${got.body.status} in ${total} s (the SQL calculation alone: ${seconds(again)} s; ` +
            `full.zip written ${full} s after Ready) — ` +
            `${Object.keys(got.body.rows as Record<string, number>).length} technologies, ${rows} rows, ${got.body.websites} websites; ` +
            `worker RSS during this list: ${workerMemory(workerPid)}`,
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
    resetPeak(workerPid);
    const t = performance.now();
    const done = await call('POST', `/v2/lists/${big.id}`, { spendCredits: big.totalCredits });
    let zip = await fetch(new URL(done.body.url as string, running.url));
    while (zip.status === 503) {
      await zip.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 200));
      zip = await fetch(new URL(done.body.url as string, running.url));
    }
    let bytes = 0;
    for await (const chunk of zip.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    console.log(
      `export: finalize + download of ${big.websites} rows in ${seconds(t)} s, full.zip ${(bytes / 1_048_576).toFixed(1)} MB; ` +
        `worker RSS during the finalize and download: ${workerMemory(workerPid)}; peak RSS of this process (API, index generation) ` +
        `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
    );
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker!.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
    console.log(`load average at end: ${load()}`);
  }
}

/** The fields of the lists API's answers (and of an error answer) that the bench reads. */
interface ListAnswer {
  id?: string;
  status?: string;
  rows?: Record<string, number>;
  websites?: number;
  totalCredits?: number;
  url?: string;
  message?: string;
}

/**
 * Starts a new peak for workerMemory: writing 5 to clear_refs resets the process's VmHWM (Linux),
 * so that each list's figure is its own and not the worker's start-up or an earlier list.
 */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** A process's RSS now and its peak (VmHWM, since the last resetPeak), from /proc. */
function workerMemory(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return `${(kb('VmRSS') / 1024).toFixed(0)} MB, peak ${(kb('VmHWM') / 1024).toFixed(0)} MB`;
}

/** LISTS_BENCH_REUSE: the slugs of an existing synthetic index by popularity, and its category. */
async function reuseIndex(db: Database, fingerprints: Fingerprints, sites: number): Promise<SyntheticIndex> {
  const category = fingerprints.categories
    .map((c) => ({ slug: c.slug, members: fingerprints.technologiesInCategory(c.slug).map((t) => t.slug) }))
    .filter((c) => c.members.length >= 100)
    .sort((a, b) => b.members.length - a.members.length)[0];
  const rows = (await db.query(
    'SELECT slug, COUNT(*) AS n FROM site_technologies GROUP BY slug ORDER BY n DESC, slug',
  )) as { slug: string }[];
  console.log(`synthetic index reused: ${sites} sites on ${db.dialect}`);
  return { slugs: rows.map((r) => r.slug), category };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
