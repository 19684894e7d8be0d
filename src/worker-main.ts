import 'reflect-metadata';
import { ConfigError, loadConfig } from './platform/config';
import { Database, workerOpenOptions } from './storage/database';
import { StartupError } from './storage/migrator';
import { logger } from './platform/logger';
import { buildServices } from './services/services';
import { mallocTuned } from './platform/malloc-tuning';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from './platform/heap-growth';
import { connectSharedState } from './redis/shared-state';
import { startWorker, warmDetectionEngine } from './workers/worker-runtime';
import { stageMeter } from './platform/stage-meter';

/**
 * `npm run worker`: an extra worker process running jobs from the shared database (MySQL/MariaDB
 * for many processes; SQLite works for processes on one machine). SIGTERM or SIGINT stops claiming,
 * lets running jobs finish within SHUTDOWN_GRACE_MS and hands the rest back to the queue.
 */
async function main(): Promise<void> {
  boundHeapGrowth(HEAP_GROWING_PERCENT.worker);
  const config = loadConfig();
  logger.level = config.LOG_LEVEL;
  const db = await Database.open(config.DATABASE_URL, workerOpenOptions(config));
  const shared = connectSharedState(config);
  const services = await buildServices(config, db, shared.events, shared.redis);
  warmDetectionEngine(services);
  const worker = startWorker(services);
  logger.info('worker started');
  const logStageCpu = () => logger.info({ stageCpu: stageMeter.snapshot() }, 'stage cpu');
  const stageCpuTimer =
    config.STAGE_CPU_LOG_SECONDS > 0
      ? setInterval(logStageCpu, config.STAGE_CPU_LOG_SECONDS * 1000)
      : undefined;
  stageCpuTimer?.unref();
  if (process.platform === 'linux' && !mallocTuned())
    logger.info(
      'started without the malloc settings of npm run worker (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_): ' +
        'memory freed after large list files may not return to the system (README, Lead lists)',
    );

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker shutting down');
    try {
      await worker.stop();
      clearInterval(stageCpuTimer);
      logStageCpu();
      services.fingerprints.stop();
      await services.renderer.close();
      await shared.close();
      await db.close();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'worker shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', (signal) => void shutdown(signal));
  process.on('SIGINT', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  if (error instanceof StartupError) {
    logger.fatal(error.message);
    console.error(error.message);
    process.exit(error.exitCode);
  }
  logger.fatal({ err: error }, 'worker failed to start');
  process.exit(1);
});
