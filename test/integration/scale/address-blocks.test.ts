import { randomBytes } from 'node:crypto';
import { RateLimitError } from '../../../src/errors';
import { EventBus } from '../../../src/platform/event-bus';
import { PerAddressRateLimiter } from '../../../src/services/platform/public-rate-limiter';
import { MemoryRateLimitStore } from '../../../src/platform/rate-limit-store';
import { SharedRedis } from '../../../src/redis/redis-connection';
import { RedisEventTransport } from '../../../src/redis/redis-event-transport';
import { RedisRateLimitStore } from '../../../src/redis/redis-rate-limit-store';
import { eventually } from '../../helpers/eventually';
import { eventSubscribers } from '../../helpers/redis-subscribers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const describeLimit = (n: number) => `at most ${n} a minute`;

/** The error `check` throws, or null when the address may go on. */
async function refusal(limiter: PerAddressRateLimiter, address: string): Promise<RateLimitError | null> {
  try {
    await limiter.check(address);
    return null;
  } catch (error) {
    if (error instanceof RateLimitError) return error;
    throw error;
  }
}

/**
 * A limiter given an event bus (failed keys) checks its own list of blocked addresses, no store:
 * the count reaching the limit blocks the address in the process that counted it at once and, by
 * the `addressBlocked` event, in every other.
 */
describe('per-address limits with blocks announced as events', () => {
  it('blocks in one process exactly at the limit until the window resets, then lets the address go', async () => {
    let now = 1_000_000;
    const limiter = new PerAddressRateLimiter(
      3,
      describeLimit,
      new MemoryRateLimitStore(),
      'failures',
      () => now,
      new EventBus(),
    );
    for (let i = 0; i < 2; i++) await limiter.count('10.0.0.1');
    expect(await refusal(limiter, '10.0.0.1')).toBeNull();
    await limiter.count('10.0.0.1');
    const refused = await refusal(limiter, '10.0.0.1');
    expect(refused?.message).toBe('at most 3 a minute');
    expect(refused?.retryAfterSeconds).toBe(60);
    expect(await refusal(limiter, '10.0.0.2')).toBeNull();
    now += 59_500;
    expect((await refusal(limiter, '10.0.0.1'))?.retryAfterSeconds).toBe(1);
    now += 500;
    expect(await refusal(limiter, '10.0.0.1')).toBeNull();
  });

  describe('two processes on one Redis', () => {
    const connections: SharedRedis[] = [];
    const buses: EventBus[] = [];
    let first: PerAddressRateLimiter;
    let second: PerAddressRateLimiter;

    beforeEach(async () => {
      const prefix = `test-ab-${randomBytes(6).toString('hex')}:`;
      const limiters = [0, 1].map(() => {
        const redis = new SharedRedis(REDIS_URL, prefix);
        const bus = new EventBus(new RedisEventTransport(redis));
        connections.push(redis);
        buses.push(bus);
        return new PerAddressRateLimiter(
          3,
          describeLimit,
          new RedisRateLimitStore(redis),
          'failures',
          Date.now,
          bus,
        );
      });
      [first, second] = limiters;
      await eventSubscribers(connections[0], 2);
    });
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
      await Promise.all(connections.splice(0).map((redis) => redis.close()));
    });

    it('blocks the address in the other process too once the shared count reaches the limit', async () => {
      await first.count('10.0.0.1');
      await first.count('10.0.0.1');
      expect(await refusal(second, '10.0.0.1')).toBeNull();
      await second.count('10.0.0.1');
      // The process that counted the third knows at once; the other when the event arrives.
      expect(await refusal(second, '10.0.0.1')).toBeInstanceOf(RateLimitError);
      const refused = await eventually(() => refusal(first, '10.0.0.1'), {
        describe: 'the block to reach the other process',
        intervalMs: 20,
      });
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
      expect(await refusal(first, '10.0.0.2')).toBeNull();
    });

    it('without the event, stops the address at its own next count (one more at most per process)', async () => {
      // A process that misses the event (as while its subscriber reconnects): same counts, a bus of its own.
      const deaf = new PerAddressRateLimiter(
        3,
        describeLimit,
        new RedisRateLimitStore(connections[1]),
        'failures',
        Date.now,
        new EventBus(),
      );
      for (let i = 0; i < 3; i++) await first.count('10.0.0.9');
      expect(await refusal(first, '10.0.0.9')).toBeInstanceOf(RateLimitError);
      expect(await refusal(deaf, '10.0.0.9')).toBeNull();
      await deaf.count('10.0.0.9');
      expect(await refusal(deaf, '10.0.0.9')).toBeInstanceOf(RateLimitError);
    });
  });
});
