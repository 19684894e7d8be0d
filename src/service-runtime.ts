import 'reflect-metadata';
import type { Config } from './platform/config';
import { Database, openOptions } from './storage/database';
import { buildAppSchema } from './resolvers/build-schema';
import { RunningHttpServer, startHttpServer } from './http/server';
import { logger } from './platform/logger';
import { buildServices, Services } from './services/services';
import { connectSharedState } from './redis/shared-state';
import { RunningWorker, startWorker, warmDetectionEngine } from './workers/worker-runtime';

export interface RunningService {
  services: Services;
  http: RunningHttpServer;
  /** The embedded worker (EMBEDDED_WORKER=true, the default). */
  worker: RunningWorker | null;
  url: string;
  /** Graceful stop: no new requests, in-flight ones finish, job leases released, database closed. */
  stop(): Promise<void>;
}

/** Starts everything `npm start` runs: storage (migrated), services, HTTP + WebSocket, the embedded worker. Tests call it too. */
export async function startService(config: Config): Promise<RunningService> {
  const db = await Database.open(config.DATABASE_URL, openOptions(config));
  const shared = connectSharedState(config);
  const closeStorage = async () => {
    await shared.close();
    await db.close();
  };
  const services = await buildServices(config, db, shared.events, shared.redis).catch(
    async (error: unknown) => {
      await closeStorage();
      throw error;
    },
  );
  const schema = await buildAppSchema(shared.events);
  const http = await startHttpServer(services, schema).catch(async (error: unknown) => {
    await closeStorage();
    throw error;
  });
  const worker = config.EMBEDDED_WORKER ? startWorker(services) : null;
  // listReady subscriptions also hear of lists calculated by separate worker processes: with
  // REDIS_URL the workers' events arrive directly (a watch too would deliver each one twice);
  // without it, a watch of the lists table.
  const stopListWatch = services.events.shared ? () => undefined : services.lists.watchEndStates(1000);
  setImmediate(() => warmDetectionEngine(services));
  let stopped = false;
  return {
    services,
    http,
    worker,
    url: http.url,
    async stop() {
      if (stopped) return;
      stopped = true;
      services.health.markShuttingDown();
      stopListWatch();
      await http.close();
      await worker?.stop();
      services.fingerprints.stop();
      await services.renderer.close();
      await closeStorage();
      logger.info('service stopped');
    },
  };
}
