import { randomBytes } from 'node:crypto';
import { RateLimitError } from '../../../src/errors';
import { PerAddressRateLimiter } from '../../../src/services/platform/public-rate-limiter';
import { MemoryRateLimitStore, RateLimitStore } from '../../../src/platform/rate-limit-store';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisRateLimitStore } from '../../../src/redis/redis-rate-limit-store';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const describeLimit = (n: number) => `at most ${n} a minute`;

/** Every consume of the list at once: how many passed, and the refusals' Retry-After. */
async function consumeAll(
  calls: { limiter: PerAddressRateLimiter; address: string }[],
): Promise<{ passed: number; retryAfter: number[] }> {
  const outcomes = await Promise.allSettled(calls.map(({ limiter, address }) => limiter.consume(address)));
  const retryAfter: number[] = [];
  for (const outcome of outcomes) {
    if (outcome.status === 'fulfilled') continue;
    if (!(outcome.reason instanceof RateLimitError)) throw outcome.reason;
    retryAfter.push(outcome.reason.retryAfterSeconds);
  }
  return { passed: outcomes.length - retryAfter.length, retryAfter };
}

/**
 * A per-address limit on requests (the public catalogue's) counts a request and refuses it when
 * the count is over the limit, in one step of the store: requests of one address that arrive
 * together pass exactly up to the limit, in one process or in several sharing Redis.
 */
describe('per-address request limits under concurrent requests', () => {
  it('lets exactly the limit through when the requests arrive together (memory)', async () => {
    let now = 1_000_000;
    const limiter = new PerAddressRateLimiter(
      5,
      describeLimit,
      new MemoryRateLimitStore(),
      'public',
      () => now,
    );
    const burst = Array.from({ length: 12 }, () => ({ limiter, address: '10.0.0.1' }));
    const { passed, retryAfter } = await consumeAll(burst);
    expect(passed).toBe(5);
    expect(retryAfter).toEqual(Array(7).fill(60));
    // Another address has its own minute; the first gets its minute back when the window resets.
    expect((await consumeAll([{ limiter, address: '10.0.0.2' }])).passed).toBe(1);
    now += 60_000;
    expect((await consumeAll(burst)).passed).toBe(5);
  });

  describe('two processes on one Redis', () => {
    const connections: SharedRedis[] = [];
    let limiters: PerAddressRateLimiter[];

    beforeEach(() => {
      const prefix = `test-al-${randomBytes(6).toString('hex')}:`;
      limiters = [0, 1].map(() => {
        const redis = new SharedRedis(REDIS_URL, prefix);
        connections.push(redis);
        const store: RateLimitStore = new RedisRateLimitStore(redis);
        return new PerAddressRateLimiter(5, describeLimit, store, 'public');
      });
    });
    afterEach(async () => {
      await Promise.all(connections.splice(0).map((redis) => redis.close()));
    });

    it('lets exactly the limit through across both when the requests arrive together', async () => {
      // Twenty requests of one address at once, alternating between the processes.
      const burst = Array.from({ length: 20 }, (_, i) => ({ limiter: limiters[i % 2], address: '10.0.0.1' }));
      const { passed, retryAfter } = await consumeAll(burst);
      expect(passed).toBe(5);
      expect(retryAfter).toHaveLength(15);
      for (const seconds of retryAfter) {
        expect(seconds).toBeGreaterThanOrEqual(59);
        expect(seconds).toBeLessThanOrEqual(60);
      }
      expect((await consumeAll([{ limiter: limiters[1], address: '10.0.0.2' }])).passed).toBe(1);
    });
  });
});
