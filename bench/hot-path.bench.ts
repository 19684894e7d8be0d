/**
 * The metered hot path (issue 16): stored lookups answered by the real service, measured from
 * outside with autocannon, on SQLite and on MariaDB, next to a plain Express handler returning the
 * same JSON from memory (the ceiling).
 *
 * Each target gets a fresh database seeded with 10 accounts of 30 keys each (300 keys, on a plan
 * from bench/hot-path/plans.json whose limits do not get in the way, through PLANS_FILE) and
 * HOT_PATH_SITES stored sites of 15 technologies with six months of history. The service then runs
 * as its own process (`node dist/src/main.js`, as `npm start` does) and autocannon, in this
 * process, cycles through the keys and sites:
 *
 * - stored GET /lookup/v1/ and stored GET /v2/lookup/ over REST, each also against the ceiling
 *   in alternating bursts (the share of the ceiling both measured under the same conditions);
 * - the facade's Lookup v1 operation POSTed to /graphql (the facade's own cost is the difference);
 * - on MariaDB, one and two API processes with REDIS_URL on the same database (two autocannon
 *   runs side by side for two), and the most two could give on this machine (one over the busy
 *   share of its CPU time while one process was measured).
 *
 * Every request is metered for real: each one is counted toward the quota and charged a credit
 * with its ledger row, as in production. The last three lines are the issue's summary:
 *   hot path sqlite: N req/s, p99 X ms      (the slower of Lookup v1 and v2)
 *   hot path mariadb: N req/s, p99 X ms
 *   hot path ceiling: N req/s
 *
 *   npm run bench:hot-path   (HOT_PATH_SECONDS=10, HOT_PATH_WARM_UP_SECONDS=10,
 *                             HOT_PATH_CONNECTIONS=20, HOT_PATH_SITES=50,
 *                             HOT_PATH_MARIADB_URL=mysql://root@127.0.0.1:3306/ or "off",
 *                             HOT_PATH_REDIS_URL=redis://127.0.0.1:6379 or "off" for the 1 vs 2
 *                             processes figure, HOT_PATH_PROFILE=1 adds a CPU profile summary by layer,
 *                             of HOT_PATH_PROFILE_ENDPOINT=v1, v2 or graphql,
 *                             HOT_PATH_RATIO_ROUNDS=6, HOT_PATH_RATIO_BURST=2 for the alternation)
 */
import './crawl/quiet-logs';
import autocannon from 'autocannon';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSecondsOf, localMariaDbPid, localRedisPid, machineCpuSeconds } from './hot-path/cpu-time';
import { PLANS_FILE, startApi } from './hot-path/api-process';
import { BenchProcess, freePort, spawnScript, waitUntilUp } from './hot-path/processes';
import { summariseProfiles } from './hot-path/profile-summary';
import { seedHotPath, HotPathSeed } from './hot-path/seed';
import { withMariaDbDatabase } from './mariadb-scratch';

const SECONDS = Math.max(2, Number(process.env.HOT_PATH_SECONDS ?? 10));
/**
 * Load before each measurement. After 3 s, a new API process's first measurement on MariaDB gave
 * 852-1,187 req/s in 8 of 10 runs (2026-11-24), after 10 s 1,346-1,739 in 5: each pooled
 * connection prepares every statement form on first use, and V8 compiles the hot code. 10 s
 * measures the steady state the targets are about.
 */
const WARM_UP_SECONDS = Math.max(1, Number(process.env.HOT_PATH_WARM_UP_SECONDS ?? 10));
const CONNECTIONS = Math.max(1, Number(process.env.HOT_PATH_CONNECTIONS ?? 20));
const SITES = Math.max(1, Number(process.env.HOT_PATH_SITES ?? 50));
const MARIADB = process.env.HOT_PATH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const REDIS = process.env.HOT_PATH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PROFILE = process.env.HOT_PATH_PROFILE === '1';
/**
 * Each stored lookup is also measured against the ceiling in alternating bursts (see
 * againstCeiling): HOT_PATH_RATIO_ROUNDS rounds of HOT_PATH_RATIO_BURST seconds each side.
 */
const RATIO_ROUNDS = Math.max(1, Number(process.env.HOT_PATH_RATIO_ROUNDS ?? 6));
const RATIO_BURST = Math.max(1, Number(process.env.HOT_PATH_RATIO_BURST ?? 2));

const LOOKUP_V1_OPERATION = `query Lookup($url: String!, $callbackUrl: String, $denoise: Boolean!) {
      lookup(url: $url, callbackUrl: $callbackUrl, denoise: $denoise) {
        status months { monthYear languages applications { name categories versions hits } }
      }
    }`;

interface Figures {
  rate: number;
  p50: number;
  p99: number;
  line: string;
  /** The share of the machine's CPU time that was busy during the measurement (0-1), when known. */
  busy?: number;
  /** The API process's CPU time per request (µs), when known. */
  apiMicros?: number;
}

/**
 * What the REST facade costs over the same operation posted to /graphql (the issue asks for at
 * most 10% more): the API process's CPU per request of each, and their requests/s.
 */
function facadeOverGraphql(rest: Figures, graphql: Figures): string {
  const rates = `${fmt(rest.rate)} vs ${fmt(graphql.rate)} req/s (${fmt(rest.rate / graphql.rate, 2)}x)`;
  if (!rest.apiMicros || !graphql.apiMicros) return `${rates}; CPU per request not known`;
  const more = (rest.apiMicros / graphql.apiMicros - 1) * 100;
  return (
    `the API's CPU per request ${fmt(rest.apiMicros)} vs ${fmt(graphql.apiMicros)} µs ` +
    `(${more <= 0 ? `${fmt(-more, 1)}% less` : `${fmt(more, 1)}% more`}); ${rates}`
  );
}

const fmt = (n: number, digits = 0): string => n.toFixed(digits);
const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(
    `load average at start: ${load()}; ${CONNECTIONS} connections, ${SECONDS} s per measurement ` +
      `after ${WARM_UP_SECONDS} s of warm-up, ${SITES} stored sites, 300 keys of 10 accounts`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'hot-path-bench-'));
  const summary: string[] = [];
  const ceilingServer = new CeilingServer(join(dir, 'lookup-body.json'));
  try {
    const sqlite = await measureDatabase(
      'sqlite',
      `sqlite:${join(dir, 'bench.db')}`,
      dir,
      ceilingServer,
      false,
    );
    summary.push(`hot path sqlite: ${fmt(sqlite.rate)} req/s, p99 ${sqlite.p99} ms`);

    if (MARIADB === 'off') summary.push('hot path mariadb: not measured (HOT_PATH_MARIADB_URL=off)');
    else {
      const mariadb = await withMariaDbDatabase(MARIADB, 'hot_path', (url) =>
        measureDatabase('mariadb', url, dir, ceilingServer, true),
      );
      summary.push(`hot path mariadb: ${fmt(mariadb.rate)} req/s, p99 ${mariadb.p99} ms`);
    }

    const ceiling = await measure(ceilingServer.url, ceilingRequests, [
      { name: 'ceiling process', pid: ceilingServer.pid },
    ]);
    summary.push(`hot path ceiling: ${fmt(ceiling.rate)} req/s`);
    console.log(`\nceiling (plain Express, same JSON from memory): ${ceiling.line}`);
    console.log(`load average at end: ${load()}\n`);
    for (const line of summary) console.log(line);
  } finally {
    await ceilingServer.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seeds a fresh database, starts the service on it and measures every hot-path figure. */
async function measureDatabase(
  name: string,
  databaseUrl: string,
  dir: string,
  ceiling: CeilingServer,
  twoProcesses: boolean,
): Promise<Figures> {
  console.log(`\n--- ${name} ---`);
  const seed = await seedHotPath(databaseUrl, SITES, PLANS_FILE);
  const first = await startApi(databaseUrl);
  const servers: Watched[] = name === 'mariadb' ? [{ name: 'MariaDB server', pid: localMariaDbPid() }] : [];
  const watched: Watched[] = [...apiProcess(first.process.child.pid), ...servers];
  try {
    // The ceiling answers the body the service gives: the first database's Lookup v1 answer.
    if (!ceiling.started) {
      const body = await (
        await fetch(`${first.url}/lookup/v1/?url=${encodeURIComponent(seed.sites[0])}`, {
          headers: { 'x-api-key': seed.keys[0] },
        })
      ).text();
      await ceiling.start(body);
    }
    const v1 = await measure(first.url, lookupV1Requests(seed), watched);
    console.log(`stored GET /lookup/v1/: ${v1.line}`);
    console.log(`stored GET /lookup/v1/ ${await againstCeiling(first.url, lookupV1Requests(seed), ceiling)}`);
    // The other way of metering, then the same measurement again (A, B, A): the first measurement
    // of a run has come out either side of the second by up to a quarter on this machine.
    await measureAlternative(name, databaseUrl, seed, servers);
    const again = await measure(first.url, lookupV1Requests(seed), watched);
    console.log(`stored GET /lookup/v1/ again: ${again.line}`);
    const v2 = await measure(first.url, lookupV2Requests(seed), watched);
    console.log(`stored GET /v2/lookup/: ${v2.line}`);
    console.log(`stored GET /v2/lookup/ ${await againstCeiling(first.url, lookupV2Requests(seed), ceiling)}`);
    const graphql = await measure(first.url, graphqlRequests(seed), watched);
    console.log(`the same Lookup v1 operation POSTed to /graphql: ${graphql.line}`);
    console.log(`REST facade over GraphQL: ${facadeOverGraphql(v1, graphql)}`);
    if (twoProcesses) await measureScaleOut(databaseUrl, seed, v1);
    return v1.rate <= v2.rate ? v1 : v2;
  } finally {
    await first.process.stop();
    if (PROFILE) await profileLookups(name, databaseUrl, dir, seed);
  }
}

/**
 * The service and the ceiling loaded in turn, RATIO_BURST seconds each, RATIO_ROUNDS times (the
 * order flipping every round), after a burst of warm-up of the ceiling: the share of the ceiling
 * the service answers, both measured under the same conditions. The separate ceiling measurement
 * at the end of the run can fall on a machine twice as fast or as slow as the one the service was
 * measured on (the ceiling has been measured at 4,011 and at 8,587 req/s on this machine), which
 * makes the ratio of the two about the machine; here each round's two bursts are seconds apart.
 */
async function againstCeiling(url: string, next: NextRequest, ceiling: CeilingServer): Promise<string> {
  await run(ceiling.url, ceilingRequests, RATIO_BURST, CONNECTIONS);
  const totals = { service: { requests: 0, seconds: 0 }, ceiling: { requests: 0, seconds: 0 } };
  const ratios: number[] = [];
  for (let round = 0; round < RATIO_ROUNDS; round++) {
    const rates: Record<'service' | 'ceiling', number> = { service: 0, ceiling: 0 };
    const order: ['service' | 'ceiling', string, NextRequest][] = [
      ['service', url, next],
      ['ceiling', ceiling.url, ceilingRequests],
    ];
    for (const [side, target, requests] of round % 2 === 0 ? order : order.reverse()) {
      const result = await run(target, requests, RATIO_BURST, CONNECTIONS);
      assertClean(result);
      totals[side].requests += completed(result);
      totals[side].seconds += result.duration;
      rates[side] = completed(result) / result.duration;
    }
    ratios.push(rates.service / rates.ceiling);
  }
  const service = totals.service.requests / totals.service.seconds;
  const top = totals.ceiling.requests / totals.ceiling.seconds;
  const percent = (n: number): string => `${fmt(n * 100)}%`;
  return (
    `against the ceiling, alternating ${RATIO_BURST} s bursts ${RATIO_ROUNDS} times: ${fmt(service)} vs ` +
    `${fmt(top)} req/s, ${percent(service / top)} of the ceiling (rounds ` +
    `${percent(Math.min(...ratios))}-${percent(Math.max(...ratios))})`
  );
}

/**
 * HOT_PATH_PROFILE=1: a CPU profile of a service process answering only stored Lookup v1 requests
 * (warm-up and measurement), summarised by layer. Its start-up is in the profile too (a few
 * hundred ms of CPU, spread over thousands of requests).
 */
async function profileLookups(
  name: string,
  databaseUrl: string,
  dir: string,
  seed: HotPathSeed,
): Promise<void> {
  const profiled = PROFILED[process.env.HOT_PATH_PROFILE_ENDPOINT ?? 'v1'] ?? PROFILED.v1;
  const profiles = process.env.HOT_PATH_PROFILE_DIR ?? join(dir, `profile-${name}`);
  const api = await startApi(databaseUrl, ['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
  let requests = 0;
  try {
    for (const seconds of [WARM_UP_SECONDS, SECONDS]) {
      requests += completed(await run(api.url, profiled.next(seed), seconds, CONNECTIONS));
    }
  } finally {
    await api.process.stop();
  }
  console.log(`CPU profile of ${profiled.label} on ${name}, self time by layer (${requests} requests):`);
  for (const line of summariseProfiles(profiles, requests)) console.log(line);
}

/** What HOT_PATH_PROFILE_ENDPOINT (v1, v2 or graphql) profiles. */
const PROFILED: Record<string, { label: string; next: (seed: HotPathSeed) => NextRequest }> = {
  v1: { label: 'stored GET /lookup/v1/', next: (seed) => lookupV1Requests(seed) },
  v2: { label: 'stored GET /v2/lookup/', next: (seed) => lookupV2Requests(seed) },
  graphql: { label: 'the Lookup v1 operation POSTed to /graphql', next: (seed) => graphqlRequests(seed) },
};

/**
 * On MariaDB, the same lookups with the metering done the other way, measured in this run: every
 * batch the exact transaction (METER_ONE_TRIP=false) instead of one round trip. SQLite has one way.
 */
async function measureAlternative(
  name: string,
  databaseUrl: string,
  seed: HotPathSeed,
  servers: Watched[],
): Promise<void> {
  if (name === 'sqlite') return;
  const setting: Record<string, string> = { METER_ONE_TRIP: 'false' };
  const api = await startApi(databaseUrl, [], setting);
  try {
    const figures = await measure(api.url, lookupV1Requests(seed), [
      ...apiProcess(api.process.child.pid),
      ...servers,
    ]);
    const [[key, value]] = Object.entries(setting);
    console.log(`stored GET /lookup/v1/ with ${key}=${value}: ${figures.line}`);
  } finally {
    await api.process.stop();
  }
}

/**
 * 1 vs 2 API processes on one database, as several processes are deployed: with REDIS_URL (shared
 * rate limits and events), both figures measured in this run. Without Redis (HOT_PATH_REDIS_URL=off)
 * the two processes run without it, against the single-process figure above.
 */
async function measureScaleOut(databaseUrl: string, seed: HotPathSeed, alone: Figures): Promise<void> {
  const redis: Record<string, string> =
    REDIS === 'off' ? {} : { REDIS_URL: REDIS, REDIS_KEY_PREFIX: `hot-path-${process.pid}-${Date.now()}:` };
  const servers: Watched[] = [{ name: 'MariaDB server', pid: localMariaDbPid() }];
  if (REDIS !== 'off') servers.push({ name: 'Redis server', pid: localRedisPid() });
  let one = alone;
  if (REDIS !== 'off') {
    const single = await startApi(databaseUrl, [], redis);
    try {
      const figures = await measure(single.url, lookupV1Requests(seed), [
        ...apiProcess(single.process.child.pid),
        ...servers,
      ]);
      one = figures;
      console.log(`one API process with REDIS_URL, stored GET /lookup/v1/: ${figures.line}`);
    } finally {
      await single.process.stop();
    }
  }
  const apis = [await startApi(databaseUrl, [], redis), await startApi(databaseUrl, [], redis)];
  try {
    const both = await measureTogether(
      apis.map((api) => api.url),
      lookupV1Requests(seed),
      [...apis.flatMap((api, i) => apiProcess(api.process.child.pid, `API process ${i + 1}`)), ...servers],
    );
    console.log(
      `two API processes on one database${REDIS === 'off' ? '' : ' with REDIS_URL'}, stored GET /lookup/v1/: ` +
        `${fmt(both.rate)} req/s, ${fmt(both.rate / one.rate, 2)}x one process${both.cpu}`,
    );
    // Two processes cannot use more than the whole machine: with the load generator, the database
    // and Redis on the same cores, the idle share one process leaves bounds what a second can add.
    if (one.busy)
      console.log(
        `two processes at most ${fmt(1 / one.busy, 2)}x one on this machine ` +
          `(one process left ${fmt((1 - one.busy) * 100)}% of its CPU time idle; no more CPU per request)`,
      );
  } finally {
    for (const api of apis) await api.process.stop();
  }
}

/**
 * The plain-Express ceiling as its own process, answering the service's Lookup v1 body from
 * memory; started once that body is known and kept up until the end of the run.
 */
class CeilingServer {
  private process: BenchProcess | null = null;
  url = '';

  constructor(private readonly bodyFile: string) {}

  get started(): boolean {
    return this.process !== null;
  }

  get pid(): number | undefined {
    return this.process?.child.pid;
  }

  async start(body: string): Promise<void> {
    writeFileSync(this.bodyFile, body);
    const port = await freePort();
    this.process = spawnScript(
      join(__dirname, 'hot-path', 'ceiling-server.js'),
      [this.bodyFile, String(port)],
      {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
      },
    );
    this.url = `http://127.0.0.1:${port}`;
    await waitUntilUp(`${this.url}/healthz`, this.process);
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }
}

const ceilingRequests = (): autocannon.Request => ({ method: 'GET', path: '/lookup/v1/' });

type NextRequest = () => autocannon.Request;

function lookupV1Requests(seed: HotPathSeed): NextRequest {
  return cycle(seed, (site) => ({
    method: 'GET',
    path: `/lookup/v1/?${new URLSearchParams({ url: site })}`,
  }));
}

function lookupV2Requests(seed: HotPathSeed): NextRequest {
  return cycle(seed, (site) => ({
    method: 'GET',
    path: `/v2/lookup/?${new URLSearchParams({ urls: site })}`,
  }));
}

function graphqlRequests(seed: HotPathSeed): NextRequest {
  return cycle(seed, (site) => ({
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({
      query: LOOKUP_V1_OPERATION,
      variables: { url: site, callbackUrl: null, denoise: true },
    }),
  }));
}

/** Requests cycling through every key (and, more slowly, every site), each key at the same pace. */
function cycle(seed: HotPathSeed, request: (site: string) => autocannon.Request): NextRequest {
  let n = 0;
  return () => {
    const i = n++;
    const base = request(seed.sites[Math.floor(i / seed.keys.length) % seed.sites.length]);
    return {
      ...base,
      headers: {
        'x-api-key': seed.keys[i % seed.keys.length],
        ...(base.body ? { 'content-type': 'application/json' } : {}),
      },
    };
  };
}

/** A process (or its main thread alone) whose CPU time per request is printed beside a figure. */
interface Watched {
  name: string;
  pid: number | undefined;
  thread?: 'main thread';
}

/**
 * An API process, and its main thread on its own: the event loop is what one process can give at
 * most one core to; the rest of the process (SQLite's metering thread, V8's and libuv's helpers)
 * runs beside it.
 */
const apiProcess = (pid: number | undefined, name = 'API process'): Watched[] => [
  { name, pid },
  { name: `${name} main thread`, pid, thread: 'main thread' },
];

async function measure(url: string, next: NextRequest, watched: Watched[] = []): Promise<Figures> {
  await run(url, next, WARM_UP_SECONDS, CONNECTIONS);
  const cpu = cpuMeter(watched);
  const result = await run(url, next, SECONDS, CONNECTIONS);
  const figures = figuresOf(result);
  const spent = cpu(completed(result));
  figures.line += spent.line;
  figures.busy = spent.busy;
  figures.apiMicros = spent.micros['API process'];
  return figures;
}

/**
 * Starts counting the CPU time of the watched processes, of this process (the load generator) and
 * of the machine; the function it returns gives the CPU per request since then, for a figure's
 * line, and the busy share of the machine.
 */
function cpuMeter(
  watched: Watched[],
): (requests: number) => { line: string; busy?: number; micros: Record<string, number> } {
  const all: Watched[] = [...watched, { name: 'load generator', pid: process.pid }];
  const before = all.map((w) => cpuSecondsOf(w.pid, w.thread));
  const machine = machineCpuSeconds();
  return (requests) => {
    const micros: Record<string, number> = {};
    const spent = all.flatMap((w, i) => {
      const after = cpuSecondsOf(w.pid, w.thread);
      const start = before[i];
      if (after === null || start === null) return [];
      micros[w.name] = ((after - start) / requests) * 1e6;
      return [`${w.name} ${fmt(micros[w.name])} µs`];
    });
    const now = machineCpuSeconds();
    let busyShare: number | undefined;
    if (machine && now) {
      const idle = now.idle - machine.idle;
      const busy = now.busy - machine.busy;
      busyShare = busy / (idle + busy);
      spent.push(`machine idle ${fmt((idle / (idle + busy)) * 100)}%`);
    }
    return {
      line: spent.length > 0 ? `; CPU per request: ${spent.join(', ')}` : '',
      busy: busyShare,
      micros,
    };
  };
}

/** Both processes loaded at once, half the connections each: the summed rate, and the CPU per request. */
async function measureTogether(
  urls: string[],
  next: NextRequest,
  watched: Watched[],
): Promise<{ rate: number; cpu: string }> {
  const connections = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  await Promise.all(urls.map((url) => run(url, next, WARM_UP_SECONDS, connections)));
  const cpu = cpuMeter(watched);
  const results = await Promise.all(urls.map((url) => run(url, next, SECONDS, connections)));
  for (const result of results) assertClean(result);
  return {
    rate: results.reduce((sum, result) => sum + completed(result) / result.duration, 0),
    cpu: cpu(results.reduce((sum, result) => sum + completed(result), 0)).line,
  };
}

function run(
  url: string,
  next: NextRequest,
  seconds: number,
  connections: number,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        duration: seconds,
        timeout: 10,
        requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const completed = (result: autocannon.Result): number => result.latency.totalCount ?? result.requests.total;

function figuresOf(result: autocannon.Result): Figures {
  assertClean(result);
  const rate = completed(result) / result.duration;
  return {
    rate,
    p50: result.latency.p50,
    p99: result.latency.p99,
    line:
      `${fmt(rate)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
      `max ${result.latency.max} ms (${completed(result)} requests in ${fmt(result.duration, 1)} s)`,
  };
}

/** A figure made of refusals or errors would mean nothing: every answer must have been a 200. */
function assertClean(result: autocannon.Result): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `not every request was answered 200: non-2xx ${result.non2xx}, errors ${result.errors}, ` +
        `timeouts ${result.timeouts}, status codes ${JSON.stringify(result.statusCodeStats)}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
