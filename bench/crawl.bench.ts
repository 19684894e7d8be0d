/**
 * Crawl and lookup benchmark, all local: realistic 25+-page shop sites on 127.0.0.1 (bench/crawl/
 * bench-site.ts) and the service in-process over a temporary SQLite database. Prints
 *
 * 1. pages per second of a 25-page crawl through the analyzer (fetch, detect, record in the
 *    index): a cold first crawl, then the median of warm crawls of other sites;
 * 2. pages per second of Crawl v1 end to end (GET /crawl/v1/ → job → crawl → signed callback);
 * 3. requests per second and p50/p99 latency of GET /lookup/v1/ answered from the index, under
 *    concurrent load with autocannon (bounded by a request count and a time cap), then of
 *    GET /v2/lookup/?sets=all on the same sites, and the ratio of the two (issue 9: at most 1.5x).
 *
 * autocannon runs in this process, so the lookup figures include the client's own cost on the same
 * cores; the load average is printed at start and end because the machine is often shared.
 *
 *   npm run bench:crawl     (CRAWL_BENCH_LOOKUPS=N lookups, default 3000; CRAWL_BENCH_CONNECTIONS, default 16)
 */
// First: the logger reads LOG_LEVEL when it is loaded.
import './crawl/quiet-logs';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/platform/config';
import { startService } from '../src/service-runtime';
import { BenchSite, startBenchSite } from './crawl/bench-site';

const LOOKUPS = Math.max(100, Number(process.env.CRAWL_BENCH_LOOKUPS ?? 3000));
const CONNECTIONS = Math.max(1, Number(process.env.CRAWL_BENCH_CONNECTIONS ?? 16));
const WARM_CRAWLS = 3;
/** The lookup family allows 10 requests/s per key on the large plan: no key is used more than that in all. */
const USES_PER_KEY = 10;
const LOOKUP_TIME_CAP_MS = 30_000;

const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);

  const sites: BenchSite[] = [];
  for (const name of ['Alpha Roasters', 'Beta Beans', 'Gamma Grind', 'Delta Drip', 'Epsilon Espresso'])
    sites.push(await startBenchSite(name));
  const dir = mkdtempSync(join(tmpdir(), 'crawl-bench-'));
  const running = await startService(
    loadConfig({
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`,
      ALLOW_PRIVATE_TARGETS: 'true',
      // Nothing answers DNS here: the sites are IP addresses, and their DNS facts must not wait on the system's resolvers.
      DNS_SERVERS: '127.0.0.1:9',
      DNS_TIMEOUT_MS: '200',
      JOB_POLL_INTERVAL_MS: '20',
      // The pipeline's throughput on five local hosts, comparable with earlier runs: not paced
      // (the politeness bound is what bench:index-scale observes).
      HOST_REQUESTS_PER_SECOND: '0',
    }),
  );
  const { services } = running;
  try {
    // 1. The analyzer's crawl: fetch, detect and record, 25 pages.
    const crawlOnce = async (site: BenchSite) => {
      const viewsBefore = site.pageViews();
      const started = process.hrtime.bigint();
      const analysis = await services.analyzer.crawl(`${site.url}/`);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (!analysis.ok)
        throw new Error(
          `crawl of ${site.url} failed: ${analysis.errors.map((e: Error) => e.message).join('; ')}`,
        );
      return { pages: analysis.pages, fetched: site.pageViews() - viewsBefore, seconds };
    };
    console.log(
      `\ncrawl (analyzer: fetch + detect + index; ${services.config.CRAWL_MAX_PAGES} pages max, ` +
        `${services.config.CRAWL_CONCURRENCY_PER_HOST} requests per host at a time)`,
    );
    const cold = await crawlOnce(sites[0]);
    console.log(
      `  cold crawl:  ${cold.pages} pages in ${fmt(cold.seconds, 2)} s = ${fmt(cold.pages / cold.seconds)} pages/s`,
    );
    const warm = [];
    for (let i = 1; i <= WARM_CRAWLS; i++) warm.push(await crawlOnce(sites[i]));
    const rates = warm.map((w) => w.pages / w.seconds);
    console.log(
      `  warm crawls: ${warm.map((w) => w.pages).join(', ')} pages; ` +
        `${rates.map((r) => fmt(r)).join(', ')} pages/s; median ${fmt(median(rates))} pages/s`,
    );

    // 2. Crawl v1 end to end: request, job, crawl, callback.
    const account = await services.accounts.createAccount({
      name: 'bench',
      email: 'bench@example.com',
      plan: 'large',
      credits: 2 * LOOKUPS + 1000,
    });
    const callback = await startReceiver();
    const site = sites[WARM_CRAWLS + 1];
    const viewsBefore = site.pageViews();
    const started = process.hrtime.bigint();
    const accepted = await fetch(
      `${running.url}/crawl/v1/?${new URLSearchParams({ url: `${site.url}/`, callback_url: callback.url })}`,
      { headers: { 'x-api-key': account.apiKey } },
    );
    if (accepted.status !== 202)
      throw new Error(`GET /crawl/v1/ answered ${accepted.status}: ${await accepted.text()}`);
    const body = await callback.received;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const pages = site.pageViews() - viewsBefore;
    const result = JSON.parse(body) as { status: string; applications: unknown[] };
    console.log(
      `\ncrawl v1 end to end (202, job, crawl, callback): ${pages} pages in ${fmt(seconds, 2)} s = ` +
        `${fmt(pages / seconds)} pages/s (callback status ${result.status}, ${result.applications.length} applications)`,
    );
    await callback.close();

    // 3. Stored lookups under load: Lookup v1, then Lookup v2 with every field set, same sites.
    await services.trafficRanks.refreshObservedRanks();
    const keysFor = async (): Promise<string[]> => {
      const keys: string[] = [];
      while (keys.length < Math.ceil(LOOKUPS / USES_PER_KEY))
        keys.push((await services.accounts.createKey(account.accountId)).apiKey);
      return keys;
    };
    const v1 = await storedLookups(
      running.url,
      sites.map((s) => `/lookup/v1/?${new URLSearchParams({ url: s.url })}`),
      await keysFor(),
    );
    console.log(`\nlookup v1 from the index (${sites.length} sites): ${v1.line}`);
    const v2 = await storedLookups(
      running.url,
      sites.map((s) => `/v2/lookup/?${new URLSearchParams({ urls: s.url, sets: 'all' })}`),
      await keysFor(),
    );
    console.log(`lookup v2 sets=all from the index (${sites.length} sites): ${v2.line}`);
    console.log(
      `lookup v2 sets=all / lookup v1: ${fmt(v1.rate / v2.rate, 2)}x the cost per request (req/s ratio), ` +
        `p99 ${fmt(v2.p99 / Math.max(1, v1.p99), 2)}x`,
    );
  } finally {
    await running.stop();
    await Promise.all(sites.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nload average at end: ${load()}`);
}

/** LOOKUPS stored lookups over CONNECTIONS connections, cycling through the paths and keys. */
async function storedLookups(
  url: string,
  paths: string[],
  keys: string[],
): Promise<{ rate: number; p99: number; line: string }> {
  const probe = await fetch(`${url}${paths[0]}`, { headers: { 'x-api-key': keys[0] } });
  if (probe.status !== 200)
    throw new Error(`a stored lookup answered ${probe.status}: ${await probe.text()}`);
  let next = 1;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: CONNECTIONS,
        amount: LOOKUPS,
        timeout: 10,
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => {
              const n = next++;
              return {
                ...request,
                path: paths[n % paths.length],
                headers: { 'x-api-key': keys[n % keys.length] },
              };
            },
          },
        ],
      },
      (error, output) => {
        clearTimeout(cap);
        if (error) reject(error);
        else resolve(output);
      },
    );
    const cap = setTimeout(() => instance.stop(), LOOKUP_TIME_CAP_MS);
  });
  const completed = result.latency.totalCount ?? result.requests.total;
  const rate = completed / result.duration;
  return {
    rate,
    p99: result.latency.p99,
    line:
      `${CONNECTIONS} connections, ${completed} requests in ${fmt(result.duration, 2)} s: ${fmt(rate, 0)} requests/s, ` +
      `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms; ` +
      `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
  };
}

/** A callback receiver: resolves `received` with the first POSTed body. */
async function startReceiver(): Promise<{ url: string; received: Promise<string>; close(): Promise<void> }> {
  let deliver: (body: string) => void = () => undefined;
  const received = new Promise<string>((resolve) => (deliver = resolve));
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200).end('ok');
      deliver(Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
