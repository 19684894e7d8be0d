import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite, MemoryHostSlots, type CrawlOptions } from '../../../src/fetch';
import { MemoryHostPacer, PACING_WINDOW_MS, type PacerClock } from '../../../src/fetch/host-pacing';
import { loadConfig } from '../../../src/platform/config';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisHostPacer } from '../../../src/redis/redis-host-pacer';
import { mostInAnyWindow } from '../../helpers/pacing-window';

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

/**
 * A clock with timers: `run` fires them in order of their moments, each in a turn of its own, until
 * `done` settles, except that when the first timer at or after `stall.at` falls due the clock jumps
 * `stall.forMs` further and every timer due by then fires in the same turn, as after a stalled
 * event loop.
 */
function stallingClock(stall?: { at: number; forMs: number }) {
  const timers: { due: number; fire: () => void }[] = [];
  const clock = {
    at: 0,
    stalled: false,
    now: () => clock.at,
    sleep: (ms: number) => new Promise<void>((fire) => void timers.push({ due: clock.at + ms, fire })),
    async run(done: Promise<unknown>): Promise<void> {
      let finished = false;
      void done.then(
        () => (finished = true),
        () => (finished = true),
      );
      for (;;) {
        // Let the pacer react to what fired last (its promise chains take a few turns).
        for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
        if (finished) return;
        if (timers.length === 0) throw new Error('nothing left to fire, yet not done');
        timers.sort((a, b) => a.due - b.due);
        clock.at = Math.max(clock.at, timers[0].due);
        if (stall && !clock.stalled && clock.at >= stall.at) {
          clock.stalled = true;
          clock.at += stall.forMs;
        }
        const due = timers.filter((timer) => timer.due <= clock.at);
        timers.splice(0, due.length);
        due.forEach((timer) => timer.fire());
      }
    },
  };
  return clock;
}

/**
 * A site of 20 linked pages, each with two scripts; every request's arrival stamped by `stamp`
 * (`pages`: the HTML pages' alone), robots.txt `robots` when given.
 */
async function startSite(stamp: () => number, robots?: string) {
  const arrivals: number[] = [];
  const pages: number[] = [];
  const server: Server = createServer((req, res) => {
    arrivals.push(stamp());
    const path = req.url ?? '/';
    if (path.endsWith('.js')) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('1');
    if (path === '/robots.txt')
      return void (robots === undefined
        ? res.writeHead(404).end()
        : res.writeHead(200, { 'content-type': 'text/plain' }).end(robots));
    pages.push(stamp());
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
    pages,
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

  // A stalled event loop (a heap snapshot, a long parse) fires every timer that fell due during the
  // stall in one turn: requests whose waits ended then must not all go at once.
  it('a stall never lets go at once the requests it held up', async () => {
    const clock = stallingClock({ at: 1000, forMs: 3000 });
    const pacer = new MemoryHostPacer(5, clock);
    const letGo: number[] = [];
    const waits = Array.from({ length: 20 }, () =>
      pacer.wait('shop.test').then(() => letGo.push(clock.now())),
    );
    await clock.run(Promise.all(waits));
    expect(letGo).toHaveLength(20);
    expect(clock.stalled).toBe(true);
    expect(mostInAnyWindow(letGo)).toBe(5);
  });

  it('gives up its turn when its signal aborts, without holding back the requests queued behind it', async () => {
    const clock = stallingClock();
    const pacer = new MemoryHostPacer(1, clock);
    await pacer.wait('shop.test');
    const controller = new AbortController();
    const given = pacer.wait('shop.test', controller.signal);
    const next = pacer.wait('shop.test');
    controller.abort(new Error('deadline'));
    await expect(given).rejects.toThrow('deadline');
    await clock.run(next);
    // The aborted request took no moment: the next one went a window after the first.
    expect(clock.now()).toBe(PACING_WINDOW_MS);
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

  it('through Redis, a wait that ended late gives its reservation back and takes a new one', async () => {
    const prefix = `test-pace-${randomBytes(6).toString('hex')}:`;
    const redis = new SharedRedis(REDIS_URL, prefix);
    try {
      // A local clock that sees the first wait end a stall's worth (3 s) late.
      let readings = 0;
      const now = () => performance.now() + (++readings === 2 ? 3_000 : 0);
      const pacer = new RedisHostPacer(redis, 2, now);
      const reserve = jest.spyOn(pacer, 'reserve');
      await pacer.reserve('slow.test:443');
      await pacer.reserve('slow.test:443');
      await pacer.wait('slow.test:443');
      // Reserved, found late, reserved again giving the first back; the second wait was on time.
      expect(reserve).toHaveBeenCalledTimes(4);
      const [, late] = await reserve.mock.results[2].value;
      expect(reserve.mock.calls[3]).toEqual(['slow.test:443', late]);
      const held = await redis.commands.lrange(redis.key('host-pace:slow.test:443'), 0, -1);
      expect(held.map(Number)).not.toContain(late);
    } finally {
      await redis.close();
    }
  });
});

describe("robots.txt's Crawl-delay: a lower rate for the host, bounded (ROBOTS_CRAWL_DELAY_MAX_SECONDS)", () => {
  const gaps = (times: number[]): number[] => times.slice(1).map((time, i) => time - times[i]);

  it('is 10 s at most by default, 0 ignoring Crawl-delay', () => {
    expect(loadConfig({}).ROBOTS_CRAWL_DELAY_MAX_SECONDS).toBe(10);
    expect(loadConfig({ ROBOTS_CRAWL_DELAY_MAX_SECONDS: '0' }).ROBOTS_CRAWL_DELAY_MAX_SECONDS).toBe(0);
  });

  it("spaces the crawl's page requests by the delay of our user agent's group, one at a time", async () => {
    const clock = fakeClock();
    const site = await startSite(() => clock.now(), 'User-agent: *\nCrawl-delay: 3\nDisallow: /p9\n');
    try {
      const crawl = await crawlSite(site.url, { ...options, clock });
      expect(crawl.crawlDelayMs).toBe(3000);
      expect(crawl.disallowedByRobots).toBe(1);
      expect(site.pages).toHaveLength(12);
      expect(Math.min(...gaps(site.pages))).toBe(3000);
    } finally {
      await site.close();
    }
  });

  it('cuts a longer delay to the bound, and asks for no page that could not start before the deadline', async () => {
    const clock = fakeClock();
    const site = await startSite(() => clock.now(), 'User-agent: *\nCrawl-delay: 30\n');
    try {
      const crawl = await crawlSite(site.url, {
        ...options,
        clock,
        maxPages: 25,
        maxCrawlDelaySeconds: 10,
        deadlineMs: 45_000,
      });
      expect(crawl.crawlDelayMs).toBe(10_000);
      // Pages at 0, 10, 20, 30 and 40 s; the next would start after the 45 s deadline.
      expect(site.pages).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
      expect(crawl.pages.every((page) => page.page)).toBe(true);
    } finally {
      await site.close();
    }
  });

  it('is ignored with a bound of 0 (the crawl as without it)', async () => {
    const clock = fakeClock();
    const site = await startSite(() => clock.now(), 'User-agent: *\nCrawl-delay: 5\n');
    try {
      const crawl = await crawlSite(site.url, { ...options, clock, maxCrawlDelaySeconds: 0 });
      expect(crawl.crawlDelayMs).toBeUndefined();
      expect(site.pages).toHaveLength(12);
      expect(new Set(site.pages)).toEqual(new Set([0]));
    } finally {
      await site.close();
    }
  });
});
