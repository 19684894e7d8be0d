import { JobHandlerRegistry, JobRunner } from '../jobs';
import { logger } from '../logger';
import type { Services } from '../services/services';
import { createCallbackHttpClient } from './callback-http.client';
import { callbackHttpClientOptions, jobRunnerOptions } from './job-system.settings';
import { registerJobHandlers } from './register-handlers';

export interface RunningWorker {
  runner: JobRunner;
  /** Stops claiming, lets running jobs finish within the grace time, hands the rest back. */
  stop(): Promise<void>;
}

/** A job runner over the service graph: the embedded worker of `npm start` and `npm run worker` alike. */
export function startWorker(services: Services): RunningWorker {
  const http = createCallbackHttpClient(callbackHttpClientOptions(services.config));
  const registry = registerJobHandlers(new JobHandlerRegistry(), { services, callbackPost: http.post });
  const runner = new JobRunner(services.queue, registry, { ...jobRunnerOptions(services.config), logger });
  runner.start();
  const ranks = startTrafficRanking(services);
  return {
    runner,
    async stop() {
      await ranks.stop();
      await runner.stop();
      await http.close();
    },
  };
}

/**
 * Observed traffic ranks (TrafficRankService): recomputed once at start and then every
 * TRAFFIC_RANK_REFRESH_MINUTES. A failed run is logged and retried at the next tick.
 */
function startTrafficRanking(services: Services): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const refresh = () => {
    if (running) return;
    running = services.trafficRanks
      .refreshObservedRanks()
      .then((result) => logger.debug(result, 'observed traffic ranks refreshed'))
      .catch((error: unknown) => logger.warn({ err: error }, 'traffic rank refresh failed'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(refresh, 1_000);
  first.unref();
  const minutes = services.config.TRAFFIC_RANK_REFRESH_MINUTES;
  const timer = minutes > 0 ? setInterval(refresh, minutes * 60_000) : null;
  timer?.unref();
  return {
    async stop() {
      clearTimeout(first);
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
