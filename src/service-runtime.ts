import 'reflect-metadata';
import type { Config } from './config';
import { Database, openOptions } from './db/database';
import { EventBus } from './events/event-bus';
import { buildAppSchema } from './graphql/build-schema';
import { RunningHttpServer, startHttpServer } from './http/server';
import { logger } from './logger';
import { buildServices, Services } from './services/services';
import { RunningWorker, startWorker } from './workers/worker-runtime';

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
  const events = new EventBus();
  const services = await buildServices(config, db, events).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  const schema = await buildAppSchema(events);
  const http = await startHttpServer(services, schema).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  const worker = config.EMBEDDED_WORKER ? startWorker(services) : null;
  // listReady subscriptions also hear of lists calculated by separate worker processes.
  const stopListWatch = services.lists.watchEndStates(1000);
  // The detection engine builds its prefilter tables on the first page it sees; do that now, off
  // the request path, so the first real analysis does not pay for it.
  setImmediate(() =>
    services.engine.analyze({ url: 'http://warm-up.invalid/', html: '<html><body></body></html>' }),
  );
  let stopped = false;
  return {
    services,
    http,
    worker,
    url: http.url,
    async stop() {
      if (stopped) return;
      stopped = true;
      stopListWatch();
      await http.close();
      await worker?.stop();
      await services.renderer.close();
      await db.close();
      logger.info('service stopped');
    },
  };
}
