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
  const runner = new JobRunner(services.queue, registry, {
    ...jobRunnerOptions(services.config),
    logger,
    onFailure: (kind, outcome) => services.metrics.jobFailures.inc({ kind, outcome }),
  });
  runner.start();
  return {
    runner,
    async stop() {
      await runner.stop();
      await http.close();
    },
  };
}
