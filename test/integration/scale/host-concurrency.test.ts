import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawlSite, CrawlOptions } from '../../../src/fetch';
import { HostSlots, MemoryHostSlots } from '../../../src/fetch/host-slots';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisHostSlots } from '../../../src/redis/redis-host-slots';
import { cleanEnv, distEntry, spawnNode } from '../../helpers/test-process';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PAGES = 10;
const options: CrawlOptions = {
  allowPrivateTargets: true,
  timeoutMs: 10_000,
  dnsServers: ['127.0.0.1:9'],
  dnsTimeoutMs: 200,
  concurrencyPerHost: 3,
};

/**
 * A site that answers every request after a short pause and counts the requests it is answering at
 * once (pages, robots.txt and scripts alike): the highest count is what the host saw.
 */
async function startCountingSite() {
  let inFlight = 0;
  let most = 0;
  let served = 0;
  const server: Server = createServer((req, res) => {
    inFlight++;
    most = Math.max(most, inFlight);
    setTimeout(() => {
      served++;
      const path = req.url ?? '/';
      if (path === '/app.js') res.writeHead(200, { 'content-type': 'application/javascript' }).end('1');
      else if (path === '/' || /^\/p\d+$/.test(path)) {
        const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p${i}">p${i}</a>`).join('');
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<html><head><script src="/app.js?${path}"></script></head><body>${links}</body></html>`);
      } else res.writeHead(404).end();
      inFlight--;
    }, 40);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    most: () => most,
    served: () => served,
    reset: () => {
      most = 0;
      served = 0;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('HOST_CONCURRENCY: requests in flight per host across crawls', () => {
  let site: Awaited<ReturnType<typeof startCountingSite>>;
  beforeAll(async () => {
    site = await startCountingSite();
  });
  afterAll(() => site.close());

  const twoCrawls = (first?: HostSlots, second?: HostSlots) =>
    Promise.all([
      crawlSite(site.url, { ...options, hostSlots: first }),
      crawlSite(site.url, { ...options, hostSlots: second }),
    ]);

  it('without a shared bound, two crawls of one host together pass one crawl’s bound (the test measures)', async () => {
    site.reset();
    const crawls = await twoCrawls();
    for (const crawl of crawls) expect(crawl.pages.filter((p) => p.page)).toHaveLength(PAGES + 1);
    expect(site.most()).toBeGreaterThan(3);
  });

  it('two crawls in one process sharing the process’s slots never pass the limit', async () => {
    site.reset();
    const slots = new MemoryHostSlots(2);
    const crawls = await twoCrawls(slots, slots);
    for (const crawl of crawls) expect(crawl.pages.filter((p) => p.page)).toHaveLength(PAGES + 1);
    expect(site.most()).toBeLessThanOrEqual(2);
    expect(site.most()).toBeGreaterThan(0);
  });

  describe('with Redis', () => {
    let prefix: string;
    let dir: string;
    const opened: SharedRedis[] = [];
    const redis = () => {
      const connection = new SharedRedis(REDIS_URL, prefix);
      opened.push(connection);
      return connection;
    };
    beforeEach(() => {
      prefix = `test-host-slots-${randomBytes(6).toString('hex')}:`;
    });
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'host-slots-'));
    });
    afterAll(async () => {
      await Promise.all(opened.map((connection) => connection.close()));
      rmSync(dir, { recursive: true, force: true });
    });

    it('two worker processes crawling the same host never pass the limit', async () => {
      site.reset();
      // Each process is a worker's crawl: its own Redis connection, its own HTTP client and pool.
      const script = join(dir, 'crawl-worker.js');
      writeFileSync(
        script,
        `const { crawlSite } = require(${JSON.stringify(distEntry('src/fetch/index.js'))});
const { SharedRedis } = require(${JSON.stringify(distEntry('src/redis/redis-connection.js'))});
const { RedisHostSlots } = require(${JSON.stringify(distEntry('src/redis/redis-host-slots.js'))});
(async () => {
  const redis = new SharedRedis(process.env.REDIS_URL, process.env.PREFIX);
  const hostSlots = new RedisHostSlots(redis, 3, 30000);
  // Ready once Redis has the subscription: the test's "go" then reaches both processes.
  const go = redis.subscriber();
  const started = new Promise((resolve) => go.once('message', resolve));
  await go.subscribe(process.env.PREFIX + 'go');
  console.log('ready');
  await started;
  const crawl = await crawlSite(process.env.SITE, { ...${JSON.stringify(options)}, hostSlots });
  console.log('pages ' + crawl.pages.filter((p) => p.page).length);
  await redis.close();
})();
`,
      );
      const env = cleanEnv({ REDIS_URL, PREFIX: prefix, SITE: site.url, LOG_LEVEL: 'silent' });
      const workers = [spawnNode(script, [], env), spawnNode(script, [], env)];
      await Promise.all(workers.map((w) => w.waitForLine(/^ready/, 20_000)));
      expect(await redis().commands.publish(`${prefix}go`, '1')).toBe(2);
      const lines = await Promise.all(workers.map((w) => w.waitForLine(/^pages /, 60_000)));
      expect(lines).toEqual([`pages ${PAGES + 1}`, `pages ${PAGES + 1}`]);
      await Promise.all(workers.map((w) => w.exited));
      // Both crawls ran side by side (every page, both processes) and the host saw at most 3 at once.
      expect(site.served()).toBeGreaterThanOrEqual(2 * (PAGES + 1));
      expect(site.most()).toBeLessThanOrEqual(3);
      // Nothing is left held once the crawls are done.
      const holders = await redis().commands.zcard(`${prefix}host-slots:${new URL(site.url).host}`);
      expect(holders).toBe(0);
    });

    it('a slot held by a worker that died comes free when its lease expires', async () => {
      const dead = new SharedRedis(REDIS_URL, prefix);
      const crashed = new RedisHostSlots(dead, 1, 1_500);
      await crashed.acquire('example.test'); // never released: the process "dies"
      await dead.close();

      const alive = new RedisHostSlots(redis(), 1, 1_500);
      // Held: a request with a short budget gives up waiting.
      await expect(alive.acquire('example.test', AbortSignal.timeout(200))).rejects.toBeDefined();
      // Once the lease is over, the slot is taken.
      const release = await alive.acquire('example.test', AbortSignal.timeout(10_000));
      await release();
      expect(await redis().commands.zcard(`${prefix}host-slots:example.test`)).toBe(0);
    });
  });
});
