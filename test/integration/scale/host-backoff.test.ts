import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite, CrawlOptions } from '../../../src/fetch';
import { HostBackoffStore, MemoryHostBackoff, retryAfterMs } from '../../../src/fetch/host-backoff';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisHostBackoff } from '../../../src/redis/redis-host-backoff';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const options: CrawlOptions = { allowPrivateTargets: true, timeoutMs: 2_000, connectTimeoutMs: 1_000 };

/** A site whose /busy answers 429 with Retry-After; every request path is recorded. */
async function startBusySite(retryAfter: string) {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/busy') {
      res.writeHead(429, { 'retry-after': retryAfter, 'content-type': 'text/html' }).end('slow down');
      return;
    }
    if (req.url === '/') {
      const links = ['/busy', '/a', '/b', '/c'].map((path) => `<a href="${path}">${path}</a>`).join('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${links}</body></html>`);
      return;
    }
    if (['/a', '/b', '/c'].includes(req.url ?? '')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>page</body></html>');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    host: `127.0.0.1:${port}`,
    /** Page requests (robots.txt and assets aside). */
    pages: () => requests.filter((path) => !path.startsWith('/robots.txt')),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Retry-After back-off of hosts answering 429/503', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  describe.each([
    ['process memory', async () => ({ first: new MemoryHostBackoff(), second: null, close: async () => {} })],
    [
      'Redis (two workers)',
      async () => {
        const prefix = `test-backoff-${randomBytes(6).toString('hex')}:`;
        // Two connections as two worker processes would have.
        const a = new SharedRedis(REDIS_URL, prefix);
        const b = new SharedRedis(REDIS_URL, prefix);
        return {
          first: new RedisHostBackoff(a) as HostBackoffStore,
          second: new RedisHostBackoff(b) as HostBackoffStore | null,
          close: async () => {
            await a.close();
            await b.close();
          },
        };
      },
    ],
  ])('in %s', (_name, open) => {
    it('stops asking a host that answered 429, and the next crawl of it asks nothing', async () => {
      const site = await startBusySite('3600');
      const stores = await open();
      try {
        const first = await crawlSite(site.url, {
          ...options,
          concurrencyPerHost: 1,
          hostBackoff: stores.first,
        });
        // The home page, then /busy (429); /a, /b and /c are left for after the Retry-After.
        expect(site.pages()).toEqual(['/', '/busy']);
        expect(first.pages.find((page) => page.url.endsWith('/busy'))?.error?.status).toBe(429);
        expect(await stores.first.blockedUntil(site.host)).toBeGreaterThan(Date.now() + 3_000_000);

        // Another crawl (another worker when the store is shared) requests nothing while backed off.
        const second = await crawlSite(site.url, {
          ...options,
          hostBackoff: stores.second ?? stores.first,
        });
        expect(site.pages()).toEqual(['/', '/busy']);
        expect(second.pages).toHaveLength(1);
        expect(second.pages[0].error?.message).toContain('Retry-After');
      } finally {
        await stores.close();
        await site.close();
      }
    });
  });

  it('leaves a host that answered 429 without Retry-After alone for the default minute', async () => {
    const site = await startBusySite('not-a-number');
    const store = new MemoryHostBackoff();
    try {
      await crawlSite(site.url, { ...options, concurrencyPerHost: 1, hostBackoff: store });
      expect(site.pages()).toEqual(['/', '/busy']);
      expect(await store.blockedUntil(site.host)).toBeGreaterThan(Date.now());
    } finally {
      await site.close();
    }
  });
});
