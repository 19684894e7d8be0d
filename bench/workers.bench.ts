/**
 * Crawl jobs per second with 1 and 2 worker processes (issue 10), on SQLite and on MariaDB, in one
 * run on this machine. The sites are the crawl bench's 25-page shops on 127.0.0.1, served by this
 * process; the workers are `node dist/src/worker-main.js` processes (as `npm run worker`), on one
 * fresh database per measurement, with Redis for job wake-ups as a multi-process deployment has.
 *
 * Each measurement starts the workers, waits until they are up (migrated and warmed), runs an
 * untimed round of 8 jobs per worker (so each process's code is optimised), then enqueues
 * WORKERS_BENCH_JOBS `site.index` jobs in one transaction (one per site visit, the sites taken in
 * turn) and times from the commit until every job has finished. Next to jobs/s it prints the CPU
 * time per job of the workers, of the database server (MariaDB) and of this process (serving the
 * sites), and the cores they kept busy in all: when that is close to the machine's core count,
 * a second worker cannot go faster, whatever the job table does.
 *
 *   npm run bench:workers   (WORKERS_BENCH_JOBS=40, WORKERS_BENCH_SITES=8,
 *                            WORKERS_BENCH_MARIADB_URL=mysql://root@127.0.0.1:3306/ or "off",
 *                            WORKERS_BENCH_REDIS_URL=redis://127.0.0.1:6379 or "off")
 */
import './crawl/quiet-logs';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../src/storage/database';
import { JobEntity } from '../src/storage/entities/job.entity';
import { JobKinds, JobQueue } from '../src/jobs';
import { SharedRedis } from '../src/redis/redis-connection';
import { announceEnqueues } from '../src/redis/redis-job-wakeups';
import { BenchSite, startBenchSite } from './crawl/bench-site';
import { BenchProcess, spawnScript } from './hot-path/processes';
import { withMariaDbDatabase } from './mariadb-scratch';

const JOBS = Math.max(4, Number(process.env.WORKERS_BENCH_JOBS ?? 40));
const SITES = Math.max(1, Number(process.env.WORKERS_BENCH_SITES ?? 8));
const MARIADB = process.env.WORKERS_BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const REDIS = process.env.WORKERS_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const WORKER_SCRIPT = join(__dirname, '..', 'src', 'worker-main.js');
const TICKS_PER_SECOND = 100;
/** Untimed jobs per worker before the measured round. */
const WARM_UP_JOBS_PER_WORKER = 8;

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface Figures {
  jobsPerSecond: number;
  seconds: number;
  workerCpuMs: number;
  dbCpuMs: number;
  sitesCpuMs: number;
  cores: number;
}

/** CPU time (user + system) of a process so far, in ms; 0 when it cannot be read. */
function cpuMsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function mariadbPid(): number | undefined {
  for (const name of ['mariadbd', 'mysqld']) {
    try {
      return Number(execFileSync('pidof', [name], { encoding: 'utf8' }).trim().split(/\s+/)[0]) || undefined;
    } catch {
      // not this name
    }
  }
  return undefined;
}

async function measure(databaseUrl: string, workers: number, sites: BenchSite[]): Promise<Figures> {
  const prefix = `bench-workers-${randomBytes(4).toString('hex')}:`;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    ...(REDIS !== 'off' ? { REDIS_URL: REDIS, REDIS_KEY_PREFIX: prefix } : {}),
    LOG_LEVEL: 'info',
    ALLOW_PRIVATE_TARGETS: 'true',
    DNS_SERVERS: '127.0.0.1:9',
    DNS_TIMEOUT_MS: '200',
    RENDER: 'off',
    ENRICH_VERIFY_EMAILS: 'false',
    RECRAWL_AFTER_DAYS: '0',
    TRAFFIC_RANK_REFRESH_MINUTES: '0',
    // Job throughput on a few local hosts, comparable with earlier runs: not paced per host.
    HOST_REQUESTS_PER_SECOND: '0',
  };
  // The first worker migrates the fresh database; the second starts once it has.
  const processes: BenchProcess[] = [];
  for (let i = 0; i < workers; i++) {
    const worker = spawnScript(WORKER_SCRIPT, [], env);
    processes.push(worker);
    await waitForLine(worker, /worker started/);
  }
  const db = await Database.open(databaseUrl, { migrate: 'skip' });
  const redis = REDIS !== 'off' ? new SharedRedis(REDIS, prefix) : undefined;
  const queue = new JobQueue(db);
  if (redis) announceEnqueues(queue, redis);
  const dbPid = db.dialect === 'mysql' ? mariadbPid() : undefined;
  const runJobs = async (count: number): Promise<void> => {
    await db.transaction(async (m) => {
      for (let i = 0; i < count; i++)
        await queue.enqueue(m, JobKinds.siteIndex, { host: new URL(sites[i % sites.length].url).host });
    });
    for (;;) {
      const open = await db.manager.count(JobEntity, {
        where: [{ status: 'queued' }, { status: 'running' }],
      });
      if (open === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    // A first round, not timed: every worker's code is compiled and optimised before the measured one.
    await runJobs(WARM_UP_JOBS_PER_WORKER * workers);
    const cpuBefore = processes.map((p) => cpuMsOf(p.child.pid));
    const dbBefore = cpuMsOf(dbPid);
    const ownBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    await runJobs(JOBS);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const own = process.cpuUsage(ownBefore);
    const failed = await db.manager.count(JobEntity, { where: { status: 'dead' } });
    if (failed > 0) throw new Error(`${failed} jobs failed:\n${processes.map((p) => p.output()).join('\n')}`);
    const workerCpuMs = processes.reduce((sum, p, i) => sum + cpuMsOf(p.child.pid) - cpuBefore[i], 0);
    const dbCpuMs = dbPid ? cpuMsOf(dbPid) - dbBefore : 0;
    const sitesCpuMs = (own.user + own.system) / 1000;
    return {
      jobsPerSecond: JOBS / seconds,
      seconds,
      workerCpuMs: workerCpuMs / JOBS,
      dbCpuMs: dbCpuMs / JOBS,
      sitesCpuMs: sitesCpuMs / JOBS,
      cores: (workerCpuMs + dbCpuMs + sitesCpuMs) / 1000 / seconds,
    };
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await redis?.close();
    await db.close();
  }
}

async function waitForLine(worker: BenchProcess, pattern: RegExp): Promise<void> {
  for (let waited = 0; !pattern.test(worker.output()); waited += 50) {
    if (worker.child.exitCode !== null || waited > 60_000)
      throw new Error(`the worker did not start:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function line(target: string, workers: number, f: Figures): string {
  return (
    `  ${target} ${workers} worker${workers > 1 ? 's' : ' '}: ${f.jobsPerSecond.toFixed(2)} jobs/s ` +
    `(${JOBS} jobs in ${f.seconds.toFixed(1)} s); CPU per job: workers ${f.workerCpuMs.toFixed(0)} ms, ` +
    `database ${f.dbCpuMs.toFixed(0)} ms, sites ${f.sitesCpuMs.toFixed(0)} ms; ` +
    `cores busy ${f.cores.toFixed(2)} of ${cpus().length}`
  );
}

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  console.log(
    `crawl jobs (site.index, 25-page local shops, ${JOBS} jobs over ${SITES} sites), 1 vs 2 workers`,
  );
  const sites: BenchSite[] = [];
  for (let i = 0; i < SITES; i++) sites.push(await startBenchSite(`Shop ${i}`));
  const summary: string[] = [];
  try {
    const targets: [string, (work: (url: string) => Promise<void>) => Promise<void>][] = [
      ['sqlite', withSqliteDatabase],
    ];
    if (MARIADB !== 'off')
      targets.push(['mariadb', (work) => withMariaDbDatabase(MARIADB, 'bench_workers', work)]);
    for (const [target, withDatabase] of targets) {
      const figures: Figures[] = [];
      for (const workers of [1, 2]) {
        await withDatabase(async (url) => {
          const f = await measure(url, workers, sites);
          figures.push(f);
          console.log(line(target, workers, f));
        });
      }
      summary.push(
        `crawl jobs ${target}: 1 worker ${figures[0].jobsPerSecond.toFixed(2)} jobs/s, 2 workers ` +
          `${figures[1].jobsPerSecond.toFixed(2)} jobs/s (x${(figures[1].jobsPerSecond / figures[0].jobsPerSecond).toFixed(2)})`,
      );
    }
  } finally {
    await Promise.all(sites.map((site) => site.close()));
  }
  console.log(`load average at end: ${load()}`);
  for (const text of summary) console.log(text);
}

async function withSqliteDatabase(work: (url: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'workers-bench-'));
  try {
    await work(`sqlite:${join(dir, 'bench.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
