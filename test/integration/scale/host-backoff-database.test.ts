import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite, type CrawlOptions } from '../../../src/fetch';
import { JobKinds } from '../../../src/jobs';
import { DatabaseHostBackoff } from '../../../src/services/analysis/database-host-backoff';
import { Database } from '../../../src/storage/database';
import { SiteEntity } from '../../../src/storage/entities';
import { JobEntity } from '../../../src/storage/entities/job.entity';
import { HostBackoffRepository } from '../../../src/storage/host-backoff.repository';
import { eventually } from '../../helpers/eventually';
import { startTestService, type TestService } from '../../helpers/test-service';

/**
 * Without REDIS_URL the host back-off lives in the database (host_backoffs), so a 429 with
 * Retry-After that one service instance (worker) was told is honoured by another on the same
 * database: the other asks the host nothing, its site.index job waits for the Retry-After without
 * using an attempt, and the freshness scheduler enqueues the host's re-crawl for after the wait.
 * SQLite by default, MariaDB with TEST_DATABASE_URL.
 */
interface BusySite {
  url: string;
  host: string;
  /** Page requests (robots.txt aside), in arrival order. */
  pages: string[];
  server: Server;
}

/** A site whose paths in `busy` answer 429 with `retryAfter`; "/" links to /busy, /a and /b. */
async function startBusySite(busy: string[], retryAfter: string): Promise<BusySite> {
  const pages: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/robots.txt')) return void res.writeHead(404).end();
    pages.push(path);
    if (busy.includes(path))
      return void res.writeHead(429, { 'retry-after': retryAfter, 'content-type': 'text/html' }).end('wait');
    const links = ['/busy', '/a', '/b'].map((p) => `<a href="${p}">${p}</a>`).join('');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<html><head><title>Shop</title></head><body>${links}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, host: `127.0.0.1:${port}`, pages, server };
}

const crawlOptions: CrawlOptions = {
  allowPrivateTargets: true,
  timeoutMs: 2_000,
  connectTimeoutMs: 1_000,
  dnsServers: ['127.0.0.1:9'],
  dnsTimeoutMs: 100,
  concurrencyPerHost: 1,
};

describe('host back-off shared through the database (no REDIS_URL)', () => {
  let first: TestService;
  let second: TestService;
  const sites: BusySite[] = [];

  beforeAll(async () => {
    // Two service instances (API + embedded worker each) on one database, as two workers would be.
    // One request at a time per crawl, so the pages asked before the 429 are known exactly.
    const settings = { DNS_SERVERS: '127.0.0.1:9', DNS_TIMEOUT_MS: '100', CRAWL_CONCURRENCY_PER_HOST: '1' };
    first = await startTestService(settings);
    second = await startTestService({
      ...settings,
      DATABASE_URL: first.running.services.config.DATABASE_URL,
    });
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    for (const site of sites) {
      site.server.closeAllConnections();
      await new Promise((resolve) => site.server.close(resolve));
    }
  });

  const site = async (busy: string[], retryAfter: string) => {
    const started = await startBusySite(busy, retryAfter);
    sites.push(started);
    return started;
  };
  const jobsOf = async (service: TestService, host: string) =>
    (
      await service.running.services.db.manager.find(JobEntity, { where: { kind: JobKinds.siteIndex } })
    ).filter((job) => JSON.parse(job.payload).host === host);

  it('a 429 with Retry-After seen by one instance stops the other from asking the host', async () => {
    const busy = await site(['/busy'], '3600');
    const told = await first.running.services.analyzer.crawl(busy.url);
    expect(told.ok).toBe(true);
    expect(busy.pages).toEqual(['/', '/busy']);
    const until = await second.running.services.analyzer.hostBlockedUntil(busy.url);
    expect(until).toBeGreaterThan(Date.now() + 3_500_000);

    const other = await second.running.services.analyzer.crawl(busy.url);
    expect(other.ok).toBe(false);
    expect(busy.pages).toEqual(['/', '/busy']);
  });

  it("the other instance's site.index job for the host waits for the Retry-After, without using an attempt", async () => {
    const busy = await site(['/busy'], '3600');
    await first.running.services.analyzer.crawl(busy.url);
    const until = await first.running.services.analyzer.hostBlockedUntil(busy.url);
    await second.running.services.db.transaction((m) =>
      second.running.services.queue.enqueue(m, JobKinds.siteIndex, { host: busy.host }),
    );
    const [deferred] = await eventually(async () => {
      const jobs = await jobsOf(second, busy.host);
      return jobs.length === 1 && jobs[0].lastError !== null && jobs[0].status === 'queued' && jobs;
    }, 'the site.index job deferred');
    expect(deferred.attempts).toBe(0);
    expect(deferred.runAt.getTime()).toBe(until);
    expect(deferred.lastError).toContain('Retry-After');
    expect(busy.pages).toEqual(['/', '/busy']);
  });

  it('a front page answering 429 is crawled again after its Retry-After (one attempt used, not failed)', async () => {
    const busy = await site(['/'], '120');
    await second.running.services.db.transaction((m) =>
      second.running.services.queue.enqueue(m, JobKinds.siteIndex, { host: busy.host }),
    );
    const [retried] = await eventually(async () => {
      const jobs = await jobsOf(second, busy.host);
      return jobs.length === 1 && jobs[0].status === 'queued' && jobs[0].attempts === 1 && jobs;
    }, 'the site.index job queued again');
    expect(retried.lastError).toContain('HTTP 429');
    expect(retried.runAt.getTime()).toBeGreaterThan(Date.now() + 100_000);
    expect(busy.pages).toEqual(['/']);
    // Both instances now leave the host alone until then.
    expect(await first.running.services.analyzer.hostBlockedUntil(busy.url)).toBeGreaterThan(Date.now());
  });

  it('the freshness scheduler enqueues a backed-off host for after its wait, not sooner', async () => {
    const busy = await site(['/busy'], '3600');
    await first.running.services.analyzer.crawl(busy.url);
    const until = await first.running.services.analyzer.hostBlockedUntil(busy.url);
    // The site was last analysed 40 days ago: stale now, while the host's Retry-After still runs.
    await first.running.services.db.manager.update(
      SiteEntity,
      { hostname: busy.host },
      {
        lastAnalyzedAt: new Date(Date.now() - 40 * 86_400_000),
        crawlAttemptedAt: new Date(Date.now() - 40 * 86_400_000),
      },
    );
    const { scheduled } = await second.running.services.freshness.scheduleStale(new Date());
    expect(scheduled).toContain(busy.host);
    const [job] = await jobsOf(second, busy.host);
    expect(job.runAt.getTime()).toBe(until);
  });
});

describe('DatabaseHostBackoff on its own', () => {
  let service: TestService;
  let other: Database;
  beforeAll(async () => {
    service = await startTestService({ EMBEDDED_WORKER: 'false' });
    // A second connection (pool) to the same database, as another process has.
    other = await Database.open(service.running.services.config.DATABASE_URL, { migrate: 'skip' });
  });
  afterAll(async () => {
    await other?.close();
    await service?.stop();
  });

  it('serves repeated reads from its cache, learns of another store within the cache time, and purges expired rows', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const mine = new DatabaseHostBackoff(service.running.services.db, { now: clock, readCacheMs: 2_000 });
    const theirs = new DatabaseHostBackoff(other, { now: clock, purgeEveryMs: 60_000 });
    const reads = jest.spyOn(HostBackoffRepository.prototype, 'until');
    try {
      for (let i = 0; i < 25; i++) expect(await mine.blockedUntil('shop.test')).toBe(0);
      expect(reads).toHaveBeenCalledTimes(1);

      await theirs.backOff('shop.test', now + 30_000);
      now += 1_000; // inside the cache time: this store has not asked again
      expect(await mine.blockedUntil('shop.test')).toBe(0);
      now += 1_500; // past it: read again, and the other store's back-off is seen
      expect(await mine.blockedUntil('shop.test')).toBe(1_030_000);
      // A later time recorded by one store is kept against an earlier one from the other.
      await mine.backOff('Shop.test', now + 5_000);
      expect(await theirs.blockedUntil('shop.test')).toBe(1_030_000);

      now = 1_030_000 + 60_001; // the wait is over, and a minute has passed since the last purge
      expect(await mine.blockedUntil('shop.test')).toBe(0);
      await theirs.backOff('other.test', now + 1_000);
      const rows = await service.running.services.db.query<{ host: string }[]>(
        'SELECT host FROM host_backoffs',
      );
      expect(rows.map((row) => row.host)).toEqual(['other.test']);
    } finally {
      reads.mockRestore();
    }
  });

  it('a crawl through either store leaves the host alone', async () => {
    const busy = await startBusySite(['/busy'], '60');
    try {
      const a = new DatabaseHostBackoff(service.running.services.db);
      const b = new DatabaseHostBackoff(other);
      await crawlSite(busy.url, { ...crawlOptions, hostBackoff: a });
      expect(busy.pages).toEqual(['/', '/busy']);
      const second = await crawlSite(busy.url, { ...crawlOptions, hostBackoff: b });
      expect(second.pages[0].error?.status).toBe(429);
      expect(busy.pages).toEqual(['/', '/busy']);
    } finally {
      busy.server.closeAllConnections();
      await new Promise((resolve) => busy.server.close(resolve));
    }
  });
});
