import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MoreThan } from 'typeorm';
import type { StageCpuSnapshot } from '../../src/platform/stage-meter';
import { Database } from '../../src/storage/database';
import { JobEntity } from '../../src/storage/entities/job.entity';
import { JobKinds } from '../../src/jobs';
import { SiteEntity } from '../../src/storage/entities/site.entity';
import type { SyntheticHost } from './host-catalogue';
import { profileShares } from './cpu-profile';
import { tabulate, type FinishedCrawl, type OutcomeTable } from './outcomes';
import type { SyntheticDns } from './dns-server';
import type { SyntheticWeb } from './synthetic-web';
import {
  cpuMsOf,
  importList,
  latestStageCpu,
  logLines,
  mariadbPid,
  rssMbOf,
  startWorker,
  type ImportOutcome,
  type RunningWorker,
} from './worker-runner';

export interface MeasurementSettings {
  target: 'mariadb' | 'sqlite';
  databaseUrl: string;
  workers: number;
  capSeconds: number;
  warmUpSeconds: number;
  hostsFile: string;
  env: NodeJS.ProcessEnv;
}

/** What the processes had spent at one moment of the run. */
interface Mark {
  at: number;
  done: number;
  stages: (StageCpuSnapshot | undefined)[];
  workerCpuMs: number[];
  dbCpuMs: number;
  webCpuMs: number;
}

export interface StageSplit {
  parse: number;
  detect: number;
  enrich: number;
  /** Fetch (HTTP, DNS, decoding, assets) and store (ORM, driver), with what else the process did. */
  rest: number;
}

export interface Figures {
  settings: MeasurementSettings;
  imported: ImportOutcome;
  /** Seconds from the workers' start to the end of the run, and whether the queue drained. */
  seconds: number;
  drained: boolean;
  /** The sustained window: after the warm-up, until the end (or 95 % of the jobs when it drained). */
  windowSeconds: number;
  sitesPerSecond: number;
  pagesPerSecond: number;
  indexedPerSecond: number;
  cpuPerSite: StageSplit & { total: number; database: number; web: number };
  cpuPerPage: StageSplit & { total: number };
  cores: number;
  rss: { startMb: number; endMb: number; maxMb: number }[];
  jobs: { enqueued: number; done: number; open: number; dead: number; retried: number };
  sitesInDatabase: number;
  outcomes: OutcomeTable;
  dnsQuestions: Map<string, number>;
  /** Shares of the workers' CPU by place (INDEX_SCALE_CPU_PROFILE), whole run. */
  profile: string[];
  busiestHost: { count: number; key: string };
  busiestAddress: { count: number; key: string };
  requests: number;
}

/**
 * One configuration (database, worker count): a fresh database, the list imported with the real
 * CLI, the workers started, and the queue watched each second until it drains or the cap; the
 * counts are then checked against the database.
 */
export async function measure(
  settings: MeasurementSettings,
  hosts: readonly SyntheticHost[],
  web: SyntheticWeb,
  dns: SyntheticDns,
): Promise<Figures> {
  web.perHost.reset();
  web.perAddress.reset();
  dns.questions.clear();
  const env = { ...settings.env, DATABASE_URL: settings.databaseUrl };
  const imported = await importList(settings.hostsFile, env);
  const workers: RunningWorker[] = [];
  const profileDir = process.env.INDEX_SCALE_CPU_PROFILE
    ? join(process.env.INDEX_SCALE_CPU_PROFILE, `${settings.target}-${settings.workers}`)
    : undefined;
  for (let i = 0; i < settings.workers; i++) workers.push(await startWorker(env, profileDir));
  const db = await Database.open(settings.databaseUrl, { migrate: 'skip' });
  const dbPid = settings.target === 'mariadb' ? mariadbPid() : undefined;
  const maxRss = workers.map((w) => w.rssAtStartMb);
  const pids = workers.map((w) => w.process.child.pid);
  const kind = JobKinds.siteIndex;
  const countDone = () => db.manager.count(JobEntity, { where: { kind, status: 'succeeded' } });
  const countOpen = () =>
    db.manager.count(JobEntity, {
      where: [
        { kind, status: 'queued' },
        { kind, status: 'running' },
      ],
    });
  const mark = async (): Promise<Mark> => ({
    at: performance.now(),
    done: await countDone(),
    stages: workers.map((w) => latestStageCpu(w.process.output())),
    workerCpuMs: pids.map(cpuMsOf),
    dbCpuMs: cpuMsOf(dbPid),
    webCpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  });
  const started = performance.now();
  let warm: Mark | undefined;
  let end: Mark;
  let drained = false;
  try {
    let cut: Mark | undefined;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const now = await mark();
      pids.forEach((pid, i) => (maxRss[i] = Math.max(maxRss[i], rssMbOf(pid))));
      if (!warm && now.at - started >= settings.warmUpSeconds * 1000) warm = now;
      if (!cut && now.done >= 0.95 * imported.summary.queued) cut = now;
      for (const w of workers)
        if (w.process.child.exitCode !== null)
          throw new Error(`a worker exited:\n${w.process.output().slice(-4000)}`);
      if ((await countOpen()) === 0) {
        drained = true;
        end = cut && warm && cut.at > warm.at ? cut : now;
        break;
      }
      if (now.at - started >= settings.capSeconds * 1000) {
        end = now;
        break;
      }
    }
  } catch (error) {
    await Promise.all(workers.map((w) => w.process.stop()));
    await db.close();
    throw error;
  }
  const seconds = (performance.now() - started) / 1000;
  const rssEnd = pids.map(rssMbOf);
  await Promise.all(workers.map((w) => w.process.stop()));
  if (process.env.INDEX_SCALE_LOG_DIR)
    workers.forEach((w, i) =>
      writeFileSync(
        join(process.env.INDEX_SCALE_LOG_DIR!, `${settings.target}-${settings.workers}-worker-${i + 1}.log`),
        w.process.output(),
      ),
    );
  warm ??= end;
  const jobs = {
    enqueued: imported.summary.queued,
    done: await countDone(),
    open: await countOpen(),
    dead: await db.manager.count(JobEntity, { where: { kind, status: 'dead' } }),
    retried: await db.manager.count(JobEntity, { where: { kind, attempts: MoreThan(1) } }),
  };
  const sitesInDatabase = await db.manager.count(SiteEntity);
  await db.close();
  const crawls = workers.flatMap((w) =>
    logLines(w.process.output(), 'background site crawl finished').map(
      (line) => line as unknown as FinishedCrawl,
    ),
  );
  const windowSeconds = Math.max(0.001, (end.at - warm.at) / 1000);
  const sites = Math.max(1, end.done - warm.done);
  const delta = (pick: (s: StageCpuSnapshot) => number) =>
    workers.reduce((sum, _w, i) => {
      const a = warm!.stages[i];
      const b = end.stages[i];
      return sum + (a && b ? pick(b) - pick(a) : 0);
    }, 0);
  const parse = delta((s) => s.stages.parse.cpuMs);
  const detect = delta((s) => s.stages.detect.cpuMs);
  const enrich = delta((s) => s.stages.enrich.cpuMs);
  const processCpu = delta((s) => s.processCpuMs);
  const pages = Math.max(
    1,
    delta((s) => s.stages.detect.runs),
  );
  const rest = processCpu - parse - detect - enrich;
  const workerCpu = end.workerCpuMs.reduce((sum, ms, i) => sum + ms - warm!.workerCpuMs[i], 0);
  const database = end.dbCpuMs - warm.dbCpuMs;
  const webCpu = end.webCpuMs - warm.webCpuMs;
  const indexedInWindow = crawls.length ? (crawls.filter((c) => c.ok).length / crawls.length) * sites : 0;
  return {
    settings,
    imported,
    seconds,
    drained,
    windowSeconds,
    sitesPerSecond: sites / windowSeconds,
    pagesPerSecond: pages / windowSeconds,
    indexedPerSecond: indexedInWindow / windowSeconds,
    cpuPerSite: {
      parse: parse / sites,
      detect: detect / sites,
      enrich: enrich / sites,
      rest: rest / sites,
      total: processCpu / sites,
      database: database / sites,
      web: webCpu / sites,
    },
    cpuPerPage: {
      parse: parse / pages,
      detect: detect / pages,
      enrich: enrich / pages,
      rest: rest / pages,
      total: processCpu / pages,
    },
    cores: (workerCpu + database + webCpu) / 1000 / windowSeconds,
    rss: workers.map((w, i) => ({ startMb: w.rssAtStartMb, endMb: rssEnd[i], maxMb: maxRss[i] })),
    jobs,
    sitesInDatabase,
    outcomes: tabulate(crawls, hosts),
    dnsQuestions: new Map(dns.questions),
    profile: profileDir ? profileShares(profileDir) : [],
    busiestHost: web.perHost.busiest,
    busiestAddress: web.perAddress.busiest,
    requests: web.perHost.total,
  };
}
