import { JobHandlerRegistry, JobRunner } from '../jobs';
import { logger } from '../platform/logger';
import { listenForEnqueues } from '../redis/redis-job-wakeups';
import type { Services } from '../services/services';
import { createCallbackHttpClient } from './callback-http-client';
import { callbackHttpClientOptions, jobRunnerOptions } from './job-system-settings';
import { registerJobHandlers } from './register-handlers';

export interface RunningWorker {
  runner: JobRunner;
  /** Settles once the first run of each periodic task (ranks, freshness) has ended: what a test waits for. */
  firstRuns: Promise<void>;
  /** Stops claiming, lets running jobs finish within the grace time, hands the rest back. */
  stop(): Promise<void>;
}

/**
 * The detection engine builds its prefilter tables on the first page it sees; the API and every
 * worker do that at start, off the request and job path, so the first real analysis does not pay
 * for it (260-400 ms per process).
 */
export function warmDetectionEngine(services: Services): void {
  services.engine.analyze({ url: 'http://warm-up.invalid/', html: '<html><body></body></html>' });
}

/** A job runner over the service graph: the embedded worker of `npm start` and `npm run worker` alike. */
export function startWorker(services: Services): RunningWorker {
  const http = createCallbackHttpClient(callbackHttpClientOptions(services.config));
  const registry = registerJobHandlers(new JobHandlerRegistry(), { services, callbackPost: http.post });
  const runner = new JobRunner(services.queue, registry, {
    ...jobRunnerOptions(services.config),
    logger,
    onFailure: (kind, outcome) => services.metrics.jobFailures.inc({ kind, outcome }),
  });
  runner.start();
  const stopListening = services.redis ? listenForEnqueues(services.redis, () => runner.wake()) : () => {};
  const ranks = every(services.config.TRAFFIC_RANK_REFRESH_MINUTES * 60_000, 'traffic rank refresh', () =>
    services.trafficRanks.refreshObservedRanks(),
  );
  const freshness = every(60_000, 'freshness scheduling', () => services.freshness.scheduleStale());
  const sweeper = startRetentionSweeper(services);
  return {
    runner,
    firstRuns: Promise.all([ranks.firstRun, freshness.firstRun]).then(() => undefined),
    async stop() {
      await Promise.all([ranks.stop(), freshness.stop(), sweeper.stop()]);
      stopListening();
      await runner.stop();
      await http.close();
    },
  };
}

/**
 * Every RETENTION_INTERVAL_SECONDS the worker removes finished work past its retention period.
 * Several workers may sweep at once: the deletes are idempotent and batched, so they only share work.
 */
function startRetentionSweeper(services: Services): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    try {
      const counts = await services.retention.purge(new Date(), () => stopped);
      if (Object.values(counts).some((n) => n > 0)) logger.info({ removed: counts }, 'retention sweep');
    } catch (error) {
      logger.warn({ err: error }, 'retention sweep failed');
    }
  };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return; // a sweep longer than the interval is not stacked
    busy = true;
    running = sweep().finally(() => (busy = false));
  }, services.config.RETENTION_INTERVAL_SECONDS * 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * A periodic task of the worker (observed traffic ranks, freshness scheduling): run once shortly
 * after start, then every `periodMs` (0: only at start). Runs never overlap; a failed run is logged
 * and the next tick tries again; stop() waits for a run in progress.
 */
function every(
  periodMs: number,
  name: string,
  task: () => Promise<unknown>,
): { firstRun: Promise<void>; stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let firstRunEnded: () => void = () => undefined;
  const firstRun = new Promise<void>((resolve) => (firstRunEnded = resolve));
  const run = () => {
    if (running) return;
    running = task()
      .then((result) => logger.debug({ result }, `${name} done`))
      .catch((error: unknown) => logger.warn({ err: error }, `${name} failed`))
      .finally(() => {
        running = null;
        firstRunEnded();
      });
  };
  const first = setTimeout(run, 1_000);
  first.unref();
  const timer = periodMs > 0 ? setInterval(run, periodMs) : null;
  timer?.unref();
  return {
    firstRun,
    async stop() {
      clearTimeout(first);
      if (timer) clearInterval(timer);
      await running;
      firstRunEnded();
    },
  };
}
