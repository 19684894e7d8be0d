/**
 * Filling the index at web scale (issue 35): a synthetic web of INDEX_SCALE_HOSTS hosts on
 * loopback, imported as a ranked list with the real CLI (`sites:import --format plain --crawl`) and
 * crawled by real worker processes (`dist/src/worker-main.js`), on MariaDB and on SQLite, with 1
 * and with 2 workers, each on a fresh database, until the queue drains or a time cap.
 *
 * The synthetic web (bench/index-scale/): a name server on 127.0.0.1:46053 (the workers'
 * DNS_SERVERS) answers `s00001.test`, `s00002.test`, … each with its own address (127.1.0.1,
 * 127.1.0.2, …); one listening socket per address on port 80 hands its connections to one HTTP
 * server that answers by Host. Pages come from the corpus of pages produced by real software
 * (test/corpus/sites), varied per host (title, links to its own about and contact pages, scripts).
 * Behaviours, per 100 ranks: healthy 68, slow (3 s to first byte) 5, timeout (never answers) 1,
 * reset 2, redirect to another host 3, redirect to a private address (10.0.0.1, 192.168.1.1 when
 * the build knows ALLOWED_PRIVATE_RANGES, else 127.0.0.1:9, so nothing leaves the machine) 2,
 * 404 3, 429 2, 500 2, 503 2 (429/503 with Retry-After), huge front page (> FETCH_MAX_BODY_BYTES) 1,
 * JSON front page 2, robots.txt disallowing all 3, NXDOMAIN 2, connection refused 2.
 *
 * The workers run with the service's defaults except: ALLOWED_PRIVATE_RANGES=127.0.0.0/8 (loopback
 * reachable, every other private range refused; ALLOW_PRIVATE_TARGETS=true only for a build that
 * does not know that setting, whose private redirects point at 127.0.0.1:9),
 * RENDER=off, ENRICH_VERIFY_EMAILS=false, STAGE_CPU_LOG_SECONDS=1 (the per-stage CPU lines this
 * bench reads), Redis for wake-ups and shared politeness when INDEX_SCALE_REDIS_URL is not "off".
 *
 * It prints per configuration: sites/s and pages/s sustained after the warm-up, CPU ms per site and
 * per page by stage (parse, detect, enrich, and fetch/store/rest: what the workers spent beyond
 * those), RSS of each worker at start and end, outcomes from the workers' logs checked against the
 * database's job counts, and the most requests any host and any address received in one second;
 * then the CPU per page of the one parse, detection and enrichment against one bare htmlparser2
 * tokenizer pass over the corpus pages (bench/parse-cost.ts).
 * Last line: `index scale: N sites/s, P pages/s, C ms CPU/site`, from MariaDB with the most workers:
 * N the sites of the list processed (indexed or not) per second, C the workers' CPU per site.
 *
 *   npm run bench:index-scale
 *     INDEX_SCALE_HOSTS=10000             hosts of the synthetic web (and of the list)
 *     INDEX_SCALE_SECONDS=240             cap per MariaDB measurement
 *     INDEX_SCALE_SQLITE_SECONDS=60       cap per SQLite measurement
 *     INDEX_SCALE_WARMUP_SECONDS=20       left out of the sustained figures
 *     INDEX_SCALE_WORKERS=1,2             worker process counts
 *     INDEX_SCALE_WORKER_CONCURRENCY=     WORKER_CONCURRENCY of each worker (unset: the service default)
 *     INDEX_SCALE_CRAWL_CONCURRENCY=      CRAWL_WORKER_CONCURRENCY of each worker (unset: the service default)
 *     INDEX_SCALE_MARIADB_URL=mysql://root@127.0.0.1:3306/   or "off"
 *     INDEX_SCALE_SQLITE=on               or "off"
 *     INDEX_SCALE_REDIS_URL=redis://127.0.0.1:6379/5         or "off"
 *     INDEX_SCALE_LOG_DIR=                a directory to keep each worker's log in
 *     INDEX_SCALE_HEAP_SNAPSHOT=          a directory: workers started with --heapsnapshot-signal=SIGUSR2
 *                                         (kill -USR2 a worker's pid during the run for a snapshot)
 *     INDEX_SCALE_CPU_PROFILE=            a directory for the workers' V8 CPU profiles (--cpu-prof),
 *                                         summarised by place after each measurement
 *     INDEX_SCALE_PARSE_ROUNDS=2          rounds of bench:parse's measurement over the corpus pages,
 *                                         printed beside the run (parse + detect + enrich vs htmlparser2)
 *   Quick run: INDEX_SCALE_HOSTS=500 INDEX_SCALE_SECONDS=60 INDEX_SCALE_SQLITE_SECONDS=30 npm run bench:index-scale
 */
import './crawl/quiet-logs';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSyntheticDns } from './index-scale/dns-server';
import { hostCatalogue } from './index-scale/host-catalogue';
import { measure, type Figures, type MeasurementSettings } from './index-scale/measurement';
import { reportLines } from './index-scale/report';
import { SitePages } from './index-scale/site-pages';
import { startSyntheticWeb } from './index-scale/synthetic-web';
import { withMariaDbDatabase } from './mariadb-scratch';
import { formatParseCost, measureParseCost } from './parse-cost';
import { loadParsePages } from './parse/corpus-pages';

const HOSTS = Math.max(100, Number(process.env.INDEX_SCALE_HOSTS ?? 10_000));
const MARIADB_SECONDS = Number(process.env.INDEX_SCALE_SECONDS ?? 240);
const PARSE_ROUNDS = Math.max(1, Number(process.env.INDEX_SCALE_PARSE_ROUNDS ?? 2));
const SQLITE_SECONDS = Number(process.env.INDEX_SCALE_SQLITE_SECONDS ?? 60);
const WARM_UP_SECONDS = Number(process.env.INDEX_SCALE_WARMUP_SECONDS ?? 20);
const WORKER_COUNTS = (process.env.INDEX_SCALE_WORKERS ?? '1,2')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const CONCURRENCY = process.env.INDEX_SCALE_WORKER_CONCURRENCY;
const CRAWL_CONCURRENCY = process.env.INDEX_SCALE_CRAWL_CONCURRENCY;
const MARIADB = process.env.INDEX_SCALE_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';
const SQLITE = process.env.INDEX_SCALE_SQLITE ?? 'on';
const REDIS = process.env.INDEX_SCALE_REDIS_URL ?? 'redis://127.0.0.1:6379/5';
const DNS_PORT = 46053;

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  console.log(`load average at start: ${load()} (${cpus().length} cores)`);
  const hosts = hostCatalogue(HOSTS);
  const pages = new SitePages();
  const dns = await startSyntheticDns(hosts, DNS_PORT);
  // Redirects to 10.x and 192.168.x only where the service can refuse them before connecting.
  const rangesKnown = readFileSync(join(__dirname, '..', 'src', 'platform', 'config.js'), 'utf8').includes(
    'ALLOWED_PRIVATE_RANGES',
  );
  const privateTargets = rangesKnown ? ['http://10.0.0.1/', 'http://192.168.1.1/'] : ['http://127.0.0.1:9/'];
  const web = await startSyntheticWeb(hosts, pages, {
    slowMs: 3000,
    hugeBytes: 8 * 1_048_576,
    retryAfterSeconds: 120,
    privateTargets,
  });
  const dir = mkdtempSync(join(tmpdir(), 'index-scale-'));
  const hostsFile = join(dir, 'hosts.txt');
  writeFileSync(hostsFile, hosts.map((host) => `${host.name}\n`).join(''));
  console.log(
    `synthetic web: ${HOSTS} hosts on their own loopback addresses, pages from ${pages.corpusSites} corpus sites, ` +
      `DNS ${dns.server}`,
  );
  if (!rangesKnown)
    console.log(
      'this build has no ALLOWED_PRIVATE_RANGES: "redirect-private" hosts redirect to 127.0.0.1:9 (refused) ' +
        'rather than to 10.0.0.1 / 192.168.1.1, which ALLOW_PRIVATE_TARGETS=true would let the crawler connect to',
    );
  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    MALLOC_ARENA_MAX: '2',
    MALLOC_MMAP_THRESHOLD_: '131072',
    // Loopback only: ALLOW_PRIVATE_TARGETS=true would open every private range (10.0.0.1 answers
    // through this machine's default route), so it is set only for a build without the ranges.
    ...(rangesKnown ? { ALLOWED_PRIVATE_RANGES: '127.0.0.0/8' } : { ALLOW_PRIVATE_TARGETS: 'true' }),
    DNS_SERVERS: dns.server,
    RENDER: 'off',
    ENRICH_VERIFY_EMAILS: 'false',
    STAGE_CPU_LOG_SECONDS: '1',
    TRAFFIC_RANK_REFRESH_MINUTES: '0',
    ...(CONCURRENCY ? { WORKER_CONCURRENCY: CONCURRENCY } : {}),
    ...(CRAWL_CONCURRENCY ? { CRAWL_WORKER_CONCURRENCY: CRAWL_CONCURRENCY } : {}),
    ...(REDIS !== 'off'
      ? { REDIS_URL: REDIS, REDIS_KEY_PREFIX: `index-scale-${randomBytes(4).toString('hex')}:` }
      : {}),
  });
  const all: Figures[] = [];
  const run = async (target: MeasurementSettings['target'], databaseUrl: string, workers: number) => {
    const figures = await measure(
      {
        target,
        databaseUrl,
        workers,
        capSeconds: target === 'mariadb' ? MARIADB_SECONDS : SQLITE_SECONDS,
        warmUpSeconds: WARM_UP_SECONDS,
        hostsFile,
        env: env(),
      },
      hosts,
      web,
      dns,
    );
    all.push(figures);
    for (const line of reportLines(figures, load())) console.log(line);
  };
  try {
    if (MARIADB !== 'off')
      for (const workers of WORKER_COUNTS)
        await withMariaDbDatabase(MARIADB, 'scale_index', (url) => run('mariadb', url, workers));
    if (SQLITE !== 'off')
      for (const workers of WORKER_COUNTS) {
        const sqliteDir = mkdtempSync(join(tmpdir(), 'index-scale-sqlite-'));
        try {
          await run('sqlite', `sqlite:${join(sqliteDir, 'index.db')}`, workers);
        } finally {
          rmSync(sqliteDir, { recursive: true, force: true });
        }
      }
  } finally {
    await web.close();
    await dns.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // The pages the synthetic web serves come from this corpus: the one-parse target (parse + detect
  // + enrich at most 3x one bare htmlparser2 tokenizer pass) measured on them in this run.
  console.log(`one parse per page, over the corpus pages (load ${load()}):`);
  for (const line of formatParseCost(measureParseCost(loadParsePages(), { rounds: PARSE_ROUNDS })))
    console.log(`  ${line}`);
  console.log(`load average at end: ${load()}`);
  const headline = [...all].reverse().find((f) => f.settings.target === 'mariadb') ?? all[all.length - 1];
  if (headline)
    console.log(
      `index scale: ${headline.sitesPerSecond.toFixed(2)} sites/s, ${headline.pagesPerSecond.toFixed(2)} pages/s, ` +
        `${headline.cpuPerSite.total.toFixed(0)} ms CPU/site`,
    );
}

main()
  .then(() => process.exit(process.exitCode ?? 0))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
