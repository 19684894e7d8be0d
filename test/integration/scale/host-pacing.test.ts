import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite, MemoryHostSlots, type CrawlOptions } from '../../../src/fetch';
import { MemoryHostPacer, PACING_WINDOW_MS, type PacerClock } from '../../../src/fetch/host-pacing';
import { loadConfig } from '../../../src/platform/config';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisHostPacer } from '../../../src/redis/redis-host-pacer';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A clock that only moves when a pacer sleeps: a request's arrival is stamped with the moment it was let go. */
function fakeClock(): PacerClock & { at: number } {
  const clock = {
    at: 0,
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.at += ms; // one sleeper at a time (one slot per host): it wakes at its moment
    },
  };
  return clock;
}

/** Most of `times` falling in any window of PACING_WINDOW_MS (a sliding window, stricter than calendar seconds). */
function mostInAnyWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= PACING_WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** A site of 20 linked pages, each with two scripts; every request's arrival stamped by `stamp`. */
async function startSite(stamp: () => number) {
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    arrivals.push(stamp());
    const path = req.url ?? '/';
    if (path.endsWith('.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('1');
    if (path === '/robots.txt') return void res.writeHead(404).end();
    const links = Array.from({ length: 20 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join('');
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        `<html><head><script src="/a.js"></script><script src="/b.js"></script></head><body>${links}</body></html>`,
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrivals,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const options: CrawlOptions = {
  allowPrivateTargets: true,
  timeoutMs: 5_000,
  dnsServers: ['127.0.0.1:9'],
  dnsTimeoutMs: 100,
  maxPages: 12,
};

describe('HOST_REQUESTS_PER_SECOND: requests per host in any one-second window', () => {
  it('is 10 by default, 0 turning it off', () => {
    expect(loadConfig({}).HOST_REQUESTS_PER_SECOND).toBe(10);
    expect(loadConfig({ HOST_REQUESTS_PER_SECOND: '0' }).HOST_REQUESTS_PER_SECOND).toBe(0);
  });

  // One slot per host (HOST_CONCURRENCY=1), so the one request let go at a moment is the one the
  // server stamps with it; two crawls of the host at once, as two jobs of a worker would run.
  it('holds two concurrent crawls of one host to the rate, counted at the server', async () => {
    const clock = fakeClock();
    const site = await startSite(() => clock.now());
    try {
      const pacer = new MemoryHostPacer(5, clock);
      const hostSlots = new MemoryHostSlots(1);
      await Promise.all([
        crawlSite(site.url, { ...options, hostSlots, hostPacer: pacer }),
        crawlSite(site.url, { ...options, hostSlots, hostPacer: pacer }),
      ]);
      // Pages, robots.txt and scripts of both crawls: well beyond one window's worth.
      expect(site.arrivals.length).toBeGreaterThan(25);
      expect(mostInAnyWindow(site.arrivals)).toBe(5);
      // And no slower than the rate: n requests take (n / 5 - 1) windows at most.
      expect(clock.at).toBeLessThanOrEqual(Math.ceil(site.arrivals.length / 5) * PACING_WINDOW_MS);
    } finally {
      await site.close();
    }
  });

  it('without a pacer the same crawls all arrive in one instant (what the bound prevents)', async () => {
    const clock = fakeClock();
    const site = await startSite(() => clock.now());
    try {
      await crawlSite(site.url, { ...options, hostSlots: new MemoryHostSlots(1) });
      expect(mostInAnyWindow(site.arrivals)).toBe(site.arrivals.length);
    } finally {
      await site.close();
    }
  });

  it('keeps hosts apart: a busy host does not hold back another', async () => {
    const clock = fakeClock();
    const pacer = new MemoryHostPacer(2, clock);
    for (let i = 0; i < 6; i++) await pacer.wait('busy.test');
    const before = clock.at;
    await pacer.wait('quiet.test');
    expect(clock.at).toBe(before);
  });

  it('is shared by every worker through Redis: reservations from two connections keep to the rate', async () => {
    const prefix = `test-pace-${randomBytes(6).toString('hex')}:`;
    const a = new SharedRedis(REDIS_URL, prefix);
    const b = new SharedRedis(REDIS_URL, prefix);
    try {
      const pacers = [new RedisHostPacer(a, 4), new RedisHostPacer(b, 4)];
      const moments: number[] = [];
      for (let i = 0; i < 14; i++) moments.push((await pacers[i % 2].reserve('shop.test:443'))[1]);
      expect(mostInAnyWindow(moments)).toBe(4);
      // Each reservation waits only as long as the bound needs: a window after the fourth before it.
      for (let i = 4; i < moments.length; i++)
        expect(moments[i]).toBeGreaterThanOrEqual(moments[i - 4] + PACING_WINDOW_MS);
      // Another host is not held back.
      const [wait] = await pacers[0].reserve('other.test:443');
      expect(wait).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
