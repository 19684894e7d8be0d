/**
 * Two ways of running the service compared on stored lookups, in alternating bursts (issue 16).
 *
 * On this 2-core machine two measurements of the same code a minute apart have differed by a
 * quarter (so has the plain-Express ceiling), so a change measured in separate runs is lost in the
 * noise. Here both sides run at once, each its own API process on its own fresh database with the
 * same seed, and are loaded in turn, HOT_PATH_AB_BURST seconds each, HOT_PATH_AB_ROUNDS times
 * (the order flips every round): whatever the machine does meanwhile falls on both alike. Printed
 * for each side: the requests per second over all its bursts, its main thread's CPU per request
 * (from /proc) and each burst's p99.
 *
 *   HOT_PATH_AB_A / HOT_PATH_AB_B   JSON objects of settings for that side's API process, e.g.
 *                                   '{"METER_ONE_TRIP":"false"}' (default: none)
 *   HOT_PATH_AB_A_MAIN / _B_MAIN    another build's dist/src/main.js (e.g. of a git worktree of
 *                                   another commit; default: this build's)
 *   HOT_PATH_AB_ENDPOINT            v1 (default) or v2
 *   HOT_PATH_AB_DATABASE            sqlite (default) or a MariaDB server URL, mysql://root@127.0.0.1:3306/
 *   HOT_PATH_AB_BURST=3, HOT_PATH_AB_ROUNDS=8, HOT_PATH_CONNECTIONS=20, HOT_PATH_SITES=50
 *
 *   npm run bench:hot-path:ab
 */
import './crawl/quiet-logs';
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLANS_FILE, SERVICE_MAIN, startApi } from './hot-path/api-process';
import { cpuSecondsOf } from './hot-path/cpu-time';
import { BenchProcess } from './hot-path/processes';
import { HotPathSeed, seedHotPath } from './hot-path/seed';
import { withMariaDbDatabase } from './mariadb-scratch';

const BURST = Math.max(1, Number(process.env.HOT_PATH_AB_BURST ?? 3));
const ROUNDS = Math.max(1, Number(process.env.HOT_PATH_AB_ROUNDS ?? 8));
const CONNECTIONS = Math.max(1, Number(process.env.HOT_PATH_CONNECTIONS ?? 20));
const SITES = Math.max(1, Number(process.env.HOT_PATH_SITES ?? 50));
const ENDPOINT = process.env.HOT_PATH_AB_ENDPOINT === 'v2' ? 'v2' : 'v1';
const DATABASE = process.env.HOT_PATH_AB_DATABASE ?? 'sqlite';

interface SideSpec {
  name: 'A' | 'B';
  settings: Record<string, string>;
  main: string;
}

interface Side extends SideSpec {
  url: string;
  process: BenchProcess;
  next: () => autocannon.Request;
  requests: number;
  seconds: number;
  cpuSeconds: number;
  p99s: number[];
}

function specOf(name: 'A' | 'B'): SideSpec {
  const raw = process.env[`HOT_PATH_AB_${name}`];
  const settings = raw ? (JSON.parse(raw) as Record<string, string>) : {};
  return { name, settings, main: process.env[`HOT_PATH_AB_${name}_MAIN`] ?? SERVICE_MAIN };
}

/** Requests cycling through every key (and, more slowly, every site), as the hot-path bench does. */
function requestsOf(seed: HotPathSeed): () => autocannon.Request {
  let n = 0;
  return () => {
    const i = n++;
    const site = seed.sites[Math.floor(i / seed.keys.length) % seed.sites.length];
    const query: Record<string, string> = ENDPOINT === 'v1' ? { url: site } : { urls: site };
    return {
      method: 'GET',
      path: `/${ENDPOINT === 'v1' ? 'lookup/v1' : 'v2/lookup'}/?${new URLSearchParams(query)}`,
      headers: { 'x-api-key': seed.keys[i % seed.keys.length] },
    };
  };
}

async function start(spec: SideSpec, databaseUrl: string): Promise<Side> {
  const seed = await seedHotPath(databaseUrl, SITES, PLANS_FILE);
  const api = await startApi(databaseUrl, [], spec.settings, spec.main);
  return { ...spec, ...api, next: requestsOf(seed), requests: 0, seconds: 0, cpuSeconds: 0, p99s: [] };
}

function load(side: Side, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: side.url,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [{ setupRequest: (request) => ({ ...request, ...side.next() }) }],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function burst(side: Side): Promise<void> {
  const before = cpuSecondsOf(side.process.child.pid, 'main thread');
  const result = await load(side, BURST);
  const after = cpuSecondsOf(side.process.child.pid, 'main thread');
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`side ${side.name}: not every request was answered 200 (${result.non2xx} non-2xx)`);
  }
  side.requests += result.latency.totalCount ?? result.requests.total;
  side.seconds += result.duration;
  side.cpuSeconds += (after ?? 0) - (before ?? 0);
  side.p99s.push(result.latency.p99);
}

async function compare(databaseUrl: (side: 'A' | 'B') => string): Promise<void> {
  const sides = [await start(specOf('A'), databaseUrl('A')), await start(specOf('B'), databaseUrl('B'))];
  try {
    for (const side of sides) await load(side, 10); // warm-up: prepared statements, V8's compiled code
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await burst(side);
    }
    for (const side of sides) {
      const rate = side.requests / side.seconds;
      const cpu = (side.cpuSeconds / side.requests) * 1e6;
      const build = side.main === SERVICE_MAIN ? '' : ` (${side.main})`;
      console.log(
        `${side.name} ${JSON.stringify(side.settings)}${build}: ${rate.toFixed(0)} req/s, ` +
          `main thread ${cpu.toFixed(0)} µs per request, p99 of each burst ${side.p99s.join(', ')} ms`,
      );
    }
    const [a, b] = sides;
    console.log(
      `B over A: ${((b.requests / b.seconds / (a.requests / a.seconds) - 1) * 100).toFixed(1)}% req/s, ` +
        `${((b.cpuSeconds / b.requests / (a.cpuSeconds / a.requests) - 1) * 100).toFixed(1)}% main-thread CPU per request`,
    );
  } finally {
    for (const side of sides) await side.process.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `stored ${ENDPOINT === 'v1' ? 'GET /lookup/v1/' : 'GET /v2/lookup/'} on ${DATABASE === 'sqlite' ? 'SQLite' : 'MariaDB'}: ` +
      `${ROUNDS} rounds of ${BURST} s per side, ${CONNECTIONS} connections`,
  );
  if (DATABASE === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hot-path-ab-'));
    try {
      await compare((side) => `sqlite:${join(dir, `${side}.db`)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  await withMariaDbDatabase(DATABASE, 'hot_path_a', (a) =>
    withMariaDbDatabase(DATABASE, 'hot_path_b', (b) => compare((side) => (side === 'A' ? a : b))),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
