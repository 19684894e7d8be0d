import 'reflect-metadata';
import { ConfigError, loadConfig } from './platform/config';
import { ListenError } from './http/server';
import { StartupError } from './storage/migrator';
import { logger } from './platform/logger';
import { boundHeapGrowth, HEAP_GROWING_PERCENT } from './platform/heap-growth';
import { startService } from './service-runtime';

/** `npm start`: the API with its embedded worker, stopped gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  boundHeapGrowth(HEAP_GROWING_PERCENT.api);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  logger.level = config.LOG_LEVEL;
  const service = await startService(config).catch((error: unknown) => {
    if (!(error instanceof ListenError)) throw error;
    console.error(error.message);
    process.exit(1);
  });
  logger.info({ url: service.url, database: config.DATABASE_URL.split(':')[0] }, 'service started');
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof StartupError) {
    logger.fatal(error.message);
    console.error(error.message);
    process.exit(error.exitCode);
  }
  logger.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});
