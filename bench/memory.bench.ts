/**
 * Memory of the API and of a worker (issue 35): RSS measured from outside (/proc/PID/status, once
 * a second), as an operator's monitoring sees it, with requests/s beside it.
 *
 * - The API (`node dist/src/main.js` with the malloc settings, as `npm start` runs it) over a fresh
 *   database seeded as the hot-path bench seeds it, loaded by MEMORY_CONNECTIONS connections of
 *   mixed stored lookups (GET /lookup/v1/ of stored and of unknown sites, GET /v2/lookup/ of
 *   stored sites, the Lookup v1 operation POSTed to /graphql) for MEMORY_SECONDS: RSS at start,
 *   after the first minute and the most after it; the split the process reports in /metrics (V8
 *   heap used/total by space, external memory, the rest: code, malloc, stacks); then a heap
 *   snapshot taken under load (SIGUSR2, --heapsnapshot-signal) summarised by constructor and
 *   retained size.
 * - A worker (`node dist/src/worker-main.js` with the malloc settings, as `npm run worker`) on the
 *   same database running MEMORY_WORKER_JOBS crawl jobs over the crawl bench's local shops: RSS at
 *   start, the most during the run, and at the end.
 *
 *   npm run bench:memory   (MEMORY_DATABASE=mariadb or sqlite, MEMORY_MARIADB_URL=mysql://root@127.0.0.1:3306/,
 *                           MEMORY_SECONDS=120, MEMORY_CONNECTIONS=50, MEMORY_SITES=200,
 *                           MEMORY_WORKER_JOBS=60 (0: no worker), MEMORY_API=off (the worker alone),
 *                           MEMORY_HEAP_SNAPSHOT=1 or 0,
 *                           MEMORY_API_NODE_OPTIONS / MEMORY_WORKER_NODE_OPTIONS: extra node flags, to compare)
 */
import './crawl/quiet-logs';
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobKinds, JobQueue } from '../src/jobs';
import { MALLOC_TUNING } from '../src/platform/malloc-tuning';
import { Database } from '../src/storage/database';
import { JobEntity } from '../src/storage/entities/job.entity';
import { BenchSite, startBenchSite } from './crawl/bench-site';
import { PLANS_FILE, startApi } from './hot-path/api-process';
import { BenchProcess, spawnScript, waitUntilUp } from './hot-path/processes';
import { seedHotPath, HotPathSeed } from './hot-path/seed';
import { withMariaDbDatabase } from './mariadb-scratch';
import { heapSummaryLines, summariseHeapSnapshot } from './memory/heap-summary';
import { RssSampler } from './memory/rss';

const DATABASE = process.env.MEMORY_DATABASE ?? 'mariadb';
const MARIADB = process.env.MEMORY_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const SECONDS = Math.max(10, Number(process.env.MEMORY_SECONDS ?? 120));
/** RSS "after the first minute" is read this far into the load (less when the run is shorter). */
const MINUTE = Math.min(60, SECONDS / 2);
const CONNECTIONS = Math.max(1, Number(process.env.MEMORY_CONNECTIONS ?? 50));
const SITES = Math.max(1, Number(process.env.MEMORY_SITES ?? 200));
const WORKER_JOBS = Math.max(0, Number(process.env.MEMORY_WORKER_JOBS ?? 60));
const HEAP_SNAPSHOT = process.env.MEMORY_HEAP_SNAPSHOT !== '0';
const API = process.env.MEMORY_API !== 'off';
const flags = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter(Boolean);
const API_NODE_OPTIONS = flags(process.env.MEMORY_API_NODE_OPTIONS);
const WORKER_NODE_OPTIONS = flags(process.env.MEMORY_WORKER_NODE_OPTIONS);
const METRICS_TOKEN = 'memory-bench-metrics-token';
const WORKER_SCRIPT = join(__dirname, '..', 'src', 'worker-main.js');
const SHOPS = 8;

const LOOKUP_V1_OPERATION = `query Lookup($url: String!, $callbackUrl: String, $denoise: Boolean!) {
      lookup(url: $url, callbackUrl: $callbackUrl, denoise: $denoise) {
        status months { monthYear languages applications { name categories versions hits } }
      }
    }`;

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const fmt = (n: number, digits = 0): string => n.toFixed(digits);
const mb = (bytes: number): string => `${fmt(bytes / 1048576)} MB`;

async function main(): Promise<void> {
  console.log(
    `load average at start: ${load()}; ${DATABASE}, ${CONNECTIONS} connections of mixed stored lookups ` +
      `for ${SECONDS} s, ${SITES} stored sites; a worker over ${WORKER_JOBS} crawl jobs`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
  const summary: string[] = [];
  try {
    const run = async (url: string): Promise<void> => {
      const seed = await seedHotPath(url, SITES, PLANS_FILE);
      if (API) summary.push(await measureApi(url, seed, dir));
      if (WORKER_JOBS > 0) summary.push(await measureWorker(url, dir));
    };
    if (DATABASE === 'sqlite') await run(`sqlite:${join(dir, 'bench.db')}`);
    else await withMariaDbDatabase(MARIADB, 'mem_bench', run);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nload average at end: ${load()}`);
  for (const line of summary) console.log(line);
}

async function measureApi(databaseUrl: string, seed: HotPathSeed, dir: string): Promise<string> {
  const snapshots = join(dir, 'snapshots');
  mkdirSync(snapshots, { recursive: true });
  const api = await startApi(
    databaseUrl,
    [...API_NODE_OPTIONS, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
    { METRICS_TOKEN },
  );
  const pid = api.process.child.pid;
  const rss = new RssSampler(pid);
  try {
    console.log(`\n--- API process (pid ${pid}) ---`);
    console.log(`at start: RSS ${fmt(rss.first)} MB; ${await split(api.url)}`);
    const gcBefore = await gcSeconds(api.url);
    let requests = 0;
    let atMinute = '';
    const loaded = Date.now();
    const elapsed = (): number => (Date.now() - loaded) / 1000;
    // Ten-second windows, so requests/s and RSS are printed as the load goes on.
    while (elapsed() < SECONDS) {
      const seconds = Math.min(10, Math.round(SECONDS - elapsed()));
      if (seconds < 1) break;
      const result = await load_(api.url, mixedRequests(seed), seconds);
      requests += result.requests;
      console.log(
        `  ${fmt(elapsed()).padStart(3)} s: ${fmt(result.requests / seconds)} req/s, RSS ${fmt(rss.last)} MB ` +
          `(load ${load()})`,
      );
      if (!atMinute && elapsed() >= MINUTE) atMinute = await split(api.url);
    }
    const total = elapsed();
    const steadyMax = rss.maxSince(MINUTE);
    console.log(`after ${fmt(MINUTE)} s: RSS ${fmt(rss.at(MINUTE))} MB; ${atMinute}`);
    console.log(`at end: RSS ${fmt(rss.last)} MB; ${await split(api.url)}`);
    const gc = await gcSeconds(api.url);
    for (const kind of Object.keys(gc)) gc[kind] -= gcBefore[kind] ?? 0;
    console.log(
      `GC time over the run: ${Object.entries(gc)
        .map(([kind, s]) => `${kind} ${fmt(s * 1000)} ms`)
        .join(', ')} (${fmt((Object.values(gc).reduce((a, b) => a + b, 0) / total) * 100, 1)}% of the time)`,
    );
    console.log(
      `most after ${fmt(MINUTE)} s: ${fmt(steadyMax)} MB; most over the run ${fmt(rss.maxSince())} MB`,
    );
    if (HEAP_SNAPSHOT) await snapshotUnderLoad(api.url, api.process, seed, snapshots);
    return (
      `memory api: RSS ${fmt(rss.first)} MB at start, ${fmt(rss.at(MINUTE))} MB after ${fmt(MINUTE)} s, ` +
      `${fmt(steadyMax)} MB steady max; ${fmt(requests / total)} req/s (${CONNECTIONS} connections, ` +
      `load ${load()})`
    );
  } finally {
    rss.stop();
    await api.process.stop();
  }
}

/** Seconds spent in garbage collection so far, by kind (prom-client's nodejs_gc_duration_seconds). */
async function gcSeconds(url: string): Promise<Record<string, number>> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const seconds: Record<string, number> = {};
  for (const [, kind, value] of text.matchAll(
    /^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} ([0-9.e+-]+)/gm,
  ))
    seconds[kind] = Number(value);
  return seconds;
}

/** The process's own account of its memory (prom-client's default metrics in /metrics). */
async function split(url: string): Promise<string> {
  const text = await (
    await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const value = (name: string, labels = ''): number => {
    const match = new RegExp(`^${name}${labels.replace(/[{}]/g, '\\$&')} ([0-9.e+]+)`, 'm').exec(text);
    return match ? Number(match[1]) : NaN;
  };
  const rss = value('process_resident_memory_bytes');
  const used = value('nodejs_heap_size_used_bytes');
  const total = value('nodejs_heap_size_total_bytes');
  const external = value('nodejs_external_memory_bytes');
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="(\w+)"\} ([0-9.e+]+)/gm)]
    .map(([, space, bytes]) => [space.replace(/_space$/, ''), Number(bytes)] as const)
    .filter(([, bytes]) => bytes >= 1048576)
    .sort((a, b) => b[1] - a[1])
    .map(([space, bytes]) => `${space} ${mb(bytes)}`);
  return (
    `V8 heap ${mb(used)} used of ${mb(total)} (${spaces.join(', ')}), external ${mb(external)}, ` +
    `rest (code, malloc, stacks) ${mb(rss - total - external)}`
  );
}

/** A heap snapshot written while the load goes on, summarised. */
async function snapshotUnderLoad(
  url: string,
  api: BenchProcess,
  seed: HotPathSeed,
  snapshots: string,
): Promise<void> {
  // Requests stall while the snapshot is written: their errors are not counted.
  const loading = load_(url, mixedRequests(seed), 15, false);
  await new Promise((resolve) => setTimeout(resolve, 5000));
  api.child.kill('SIGUSR2');
  await loading;
  // The snapshot is written on the main thread: once the process answers again, it is complete.
  await waitUntilUp(`${url}/healthz`, api);
  const file = readdirSync(snapshots).find((name) => name.endsWith('.heapsnapshot'));
  if (!file) {
    console.log('no heap snapshot was written');
    return;
  }
  for (const line of heapSummaryLines(summariseHeapSnapshot(join(snapshots, file)))) console.log(line);
}

async function measureWorker(databaseUrl: string, dir: string): Promise<string> {
  const snapshots = join(dir, 'worker-snapshots');
  mkdirSync(snapshots, { recursive: true });
  const shops: BenchSite[] = [];
  for (let i = 0; i < SHOPS; i++) shops.push(await startBenchSite(`Shop ${i}`));
  const worker = spawnScript(
    WORKER_SCRIPT,
    [],
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      ALLOW_PRIVATE_TARGETS: 'true',
      DNS_SERVERS: '127.0.0.1:9',
      DNS_TIMEOUT_MS: '200',
      RENDER: 'off',
      ENRICH_VERIFY_EMAILS: 'false',
      RECRAWL_AFTER_DAYS: '0',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
      ...MALLOC_TUNING,
    },
    [...WORKER_NODE_OPTIONS, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`],
  );
  const pid = worker.child.pid;
  let rss: RssSampler | undefined;
  const db = await Database.open(databaseUrl, { migrate: 'skip' });
  try {
    for (let waited = 0; !/worker started/.test(worker.output()); waited += 50) {
      if (worker.child.exitCode !== null || waited > 60_000)
        throw new Error(`the worker did not start:\n${worker.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    rss = new RssSampler(pid);
    console.log(`\n--- worker (pid ${pid}) ---\nat start: RSS ${fmt(rss.first)} MB (load ${load()})`);
    const queue = new JobQueue(db);
    const started = Date.now();
    await db.transaction(async (m) => {
      for (let i = 0; i < WORKER_JOBS; i++)
        await queue.enqueue(m, JobKinds.siteIndex, { host: new URL(shops[i % shops.length].url).host });
    });
    let printed = Date.now();
    for (;;) {
      const open = await db.manager.count(JobEntity, {
        where: [{ status: 'queued' }, { status: 'running' }],
      });
      if (open === 0) break;
      if (Date.now() - printed >= 10_000) {
        printed = Date.now();
        console.log(
          `  ${fmt((printed - started) / 1000).padStart(3)} s: ${WORKER_JOBS - open} jobs done, RSS ` +
            `${fmt(rss.last)} MB (load ${load()})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = (Date.now() - started) / 1000;
    rss.stop();
    const failed = await db.manager.count(JobEntity, { where: { status: 'dead' } });
    const line =
      `memory worker: RSS ${fmt(rss.first)} MB at start, ${fmt(rss.maxSince())} MB most during ` +
      `${WORKER_JOBS} crawl jobs (${fmt(WORKER_JOBS / seconds, 2)} jobs/s${failed ? `, ${failed} failed` : ''}), ` +
      `${fmt(rss.last)} MB at end (load ${load()})`;
    console.log(line);
    if (HEAP_SNAPSHOT) await snapshotWorker(worker, snapshots);
    return line;
  } finally {
    rss?.stop();
    await worker.stop();
    await db.close();
    await Promise.all(shops.map((shop) => shop.close()));
  }
}

/** A heap snapshot of the idle worker after its run, summarised (what it keeps between jobs). */
async function snapshotWorker(worker: BenchProcess, snapshots: string): Promise<void> {
  worker.child.kill('SIGUSR2');
  for (let waited = 0; waited < 120_000; waited += 1500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const file = readdirSync(snapshots).find((name) => name.endsWith('.heapsnapshot'));
    // Written in one go on the main thread: complete once its size stops changing.
    if (file && sizeOf(join(snapshots, file)) > 0 && (await steady(join(snapshots, file)))) {
      console.log('worker after the run:');
      for (const text of heapSummaryLines(summariseHeapSnapshot(join(snapshots, file)))) console.log(text);
      return;
    }
  }
  console.log('no heap snapshot of the worker was written');
}

const sizeOf = (file: string): number => statSync(file).size;

async function steady(file: string): Promise<boolean> {
  const before = sizeOf(file);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return sizeOf(file) === before;
}

type NextRequest = () => autocannon.Request;

/**
 * The mix, in turn: GET /lookup/v1/ of a stored site, GET /v2/lookup/ of a stored site, GET
 * /lookup/v1/ of a site never indexed, and the Lookup v1 operation POSTed to /graphql; every key
 * at the same pace, sites more slowly.
 */
function mixedRequests(seed: HotPathSeed): NextRequest {
  let n = 0;
  return (): autocannon.Request => {
    const i = n++;
    const site = seed.sites[Math.floor(i / 4) % seed.sites.length];
    const unknown = `https://www.unknown-${Math.floor(i / 4) % 1000}.example/`;
    const key = seed.keys[i % seed.keys.length];
    switch (i % 4) {
      case 0:
        return {
          method: 'GET',
          path: `/lookup/v1/?${new URLSearchParams({ url: site })}`,
          headers: { 'x-api-key': key },
        };
      case 1:
        return {
          method: 'GET',
          path: `/v2/lookup/?${new URLSearchParams({ urls: site })}`,
          headers: { 'x-api-key': key },
        };
      case 2:
        return {
          method: 'GET',
          path: `/lookup/v1/?${new URLSearchParams({ url: unknown })}`,
          headers: { 'x-api-key': key },
        };
      default:
        return {
          method: 'POST',
          path: '/graphql',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({
            query: LOOKUP_V1_OPERATION,
            variables: { url: site, callbackUrl: null, denoise: true },
          }),
        };
    }
  };
}

/**
 * Load for `seconds`; every answer must be a 200, or the 404 of a site never indexed (a figure made
 * of refusals would mean nothing).
 */
function load_(
  url: string,
  next: NextRequest,
  seconds: number,
  strict = true,
): Promise<{ requests: number }> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
        timeout: 10,
        requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
      },
      (error, result) => {
        if (error) return reject(error);
        const statuses = Object.keys(result.statusCodeStats);
        if (
          strict &&
          (statuses.some((s) => s !== '200' && s !== '404') || result.errors > 0 || result.timeouts > 0)
        )
          return reject(
            new Error(
              `not every request was answered 200 or 404: non-2xx ${result.non2xx}, errors ${result.errors}, ` +
                `timeouts ${result.timeouts}, status codes ${JSON.stringify(result.statusCodeStats)}`,
            ),
          );
        resolve({ requests: result.latency.totalCount ?? result.requests.total });
      },
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
