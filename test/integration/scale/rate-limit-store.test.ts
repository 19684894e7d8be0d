import { randomBytes } from 'node:crypto';
import { MemoryRateLimitStore, RateLimitStore } from '../../../src/platform/rate-limit-store';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisRateLimitStore } from '../../../src/redis/redis-rate-limit-store';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Both stores behave alike; the Redis one is shared by two connections (two API processes). */
describe.each(['memory', 'redis'])('%s rate-limit store', (kind) => {
  let a: SharedRedis | undefined;
  let b: SharedRedis | undefined;
  let first: RateLimitStore;
  let second: RateLimitStore;

  beforeEach(() => {
    if (kind === 'memory') {
      first = second = new MemoryRateLimitStore();
      return;
    }
    const prefix = `test-rl-${randomBytes(6).toString('hex')}:`;
    a = new SharedRedis(REDIS_URL, prefix);
    b = new SharedRedis(REDIS_URL, prefix);
    first = new RedisRateLimitStore(a);
    second = new RedisRateLimitStore(b);
  });
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  it('accepts max calls per sliding window across processes, then says how long to wait', async () => {
    const now = Date.now();
    expect(await first.take('k', 2, 10_000, now)).toBeNull();
    expect(await second.take('k', 2, 10_000, now + 1_000)).toBeNull();
    // Third call 3 s in: the oldest leaves the window 7 s later.
    expect(await first.take('k', 2, 10_000, now + 3_000)).toBe(7_000);
    // Refused calls are not counted; once the oldest has left, one more fits.
    expect(await second.take('k', 2, 10_000, now + 10_000)).toBeNull();
    expect(await first.take('k', 2, 10_000, now + 10_500)).toBe(500);
    expect(await first.take('other', 2, 10_000, now + 10_500)).toBeNull();
  });

  it('counts calls made together (one script per turn of the event loop) exactly, in order', async () => {
    const now = Date.now();
    // Seven calls of one key from two processes at once, and others beside them: three pass.
    const calls = Array.from({ length: 7 }, (_, i) =>
      (i % 2 ? second : first).take('same', 3, 10_000, now + i),
    );
    const others = Array.from({ length: 300 }, (_, i) => first.take(`other-${i}`, 1, 10_000, now));
    const results = await Promise.all(calls);
    expect(results.filter((wait) => wait === null)).toHaveLength(3);
    for (const wait of results.filter((each) => each !== null)) expect(wait).toBeGreaterThan(9_990);
    // Within one process the calls are counted in the order made.
    const alone = await Promise.all(
      Array.from({ length: 4 }, (_, i) => first.take('ordered', 2, 10_000, now + i)),
    );
    expect(alone).toEqual([null, null, 9_998, 9_997]);
    expect(await Promise.all(others)).toEqual(Array.from({ length: 300 }, () => null));
  });

  it('keeps counting after the server forgot its scripts (SCRIPT FLUSH, a restarted Redis)', async () => {
    const now = Date.now();
    expect(await first.take('flushed', 2, 10_000, now)).toBeNull();
    await first.add('flushed-ip', 60_000, now);
    if (a) await a.commands.script('FLUSH');
    expect(await second.take('flushed', 2, 10_000, now + 1)).toBeNull();
    expect(await first.take('flushed', 2, 10_000, now + 2)).toBe(9_998);
    await second.add('flushed-ip', 60_000, now);
    expect((await first.peek('flushed-ip', now)).count).toBe(2);
  });

  it('counts per-address events in a fixed window shared across processes', async () => {
    const now = Date.now();
    expect(await first.add('ip', 60_000, now)).toEqual({ count: 1, resetInMs: expect.any(Number) });
    const added = await second.add('ip', 60_000, now);
    expect(added.count).toBe(2);
    expect(added.resetInMs).toBeGreaterThan(0);
    expect(added.resetInMs).toBeLessThanOrEqual(60_000);
    const seen = await first.peek('ip', now);
    expect(seen.count).toBe(2);
    expect(seen.resetInMs).toBeGreaterThan(0);
    expect(seen.resetInMs).toBeLessThanOrEqual(60_000);
    expect((await second.peek('nobody', now)).count).toBe(0);
  });
});

describe('the Redis rate-limit store on a busy connection', () => {
  // ioredis's auto-pipelining opens a pipeline behind one still waiting for its replies, and a
  // pipeline carries the commands its connection had when it was opened: the store's scripts must
  // be there from the start (CI once saw a 500 "pipeline[functionName] is not a function").
  it('counts from its first call, made while a pipeline waits behind a running one', async () => {
    const redis = new SharedRedis(REDIS_URL, `test-rl-${randomBytes(6).toString('hex')}:`);
    try {
      await redis.commands.ping();
      const running = redis.commands.get(redis.key('running'));
      await new Promise((resolve) => process.nextTick(resolve));
      const waiting = redis.commands.get(redis.key('waiting'));
      const store: RateLimitStore = new RedisRateLimitStore(redis);
      const now = Date.now();
      await expect(store.add('first-call', 60_000, now)).resolves.toMatchObject({ count: 1 });
      await expect(store.take('first-take', 1, 60_000, now)).resolves.toBeNull();
      await Promise.all([running, waiting]);
    } finally {
      await redis.close();
    }
  });
});
