import { join } from 'node:path';
import { MALLOC_TUNING } from '../../src/platform/malloc-tuning';
import { BenchProcess, freePort, spawnScript, waitUntilUp } from './processes';

/** The plan file of the hot-path benches: a plan whose limits do not get in the way. */
export const PLANS_FILE = join(__dirname, '..', '..', '..', 'bench', 'hot-path', 'plans.json');

/** The service built here (`npm run build`), as `npm start` runs it. */
export const SERVICE_MAIN = join(__dirname, '..', '..', 'src', 'main.js');

/**
 * The service as its own process on a free port, as `npm start` starts it (production, the malloc
 * settings, no embedded worker), on `databaseUrl`; `main` may name another build's entry point.
 */
export async function startApi(
  databaseUrl: string,
  nodeOptions: string[] = [],
  extra: Record<string, string> = {},
  main = SERVICE_MAIN,
): Promise<{ url: string; process: BenchProcess }> {
  const port = await freePort();
  const child = spawnScript(
    main,
    [],
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      PLANS_FILE,
      EMBEDDED_WORKER: 'false',
      TRAFFIC_RANK_REFRESH_MINUTES: '0',
      RECRAWL_AFTER_DAYS: '0',
      ...MALLOC_TUNING,
      ...extra,
    },
    nodeOptions,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${url}/healthz`, child);
  return { url, process: child };
}
