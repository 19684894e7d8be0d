import { RateLimitError } from '../../errors';
import { BUILT_IN_PLANS, Family, PlanCatalog } from '../../plans/plan-catalog';
import type { Principal } from './caller';
import type { Services } from '../services';
import { RedisRateLimitStore } from '../../redis/redis-rate-limit-store';
import { MemoryRateLimitStore, RateLimitStore } from '../../platform/rate-limit-store';

/** The time (ms since the epoch) the per-key limits count their windows in. */
export interface RateLimitClock {
  now(): number;
}

export const systemRateLimitClock: RateLimitClock = { now: () => Date.now() };

/**
 * Per-key, per-family rate limits over a sliding window (the plan's max calls per windowMs). The
 * @RateLimited guard calls `consume` for every metered field, so REST (which runs the same fields)
 * gets the same limits. It lives in the GraphQL layer (services stay transport-free): one limiter
 * per service graph. Refused calls are not counted. Over the limit: RateLimitError with the seconds
 * until the oldest call leaves the window.
 *
 * The counts live in a RateLimitStore: process memory, or Redis when REDIS_URL is set so that every
 * API process enforces one limit. Written here rather than taken from graphql-rate-limit, which was
 * made for graphql 14/15 and whose store let concurrent checks of one bucket all pass; both stores
 * here check and count in one atomic step.
 */
export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
    private readonly plans: PlanCatalog = BUILT_IN_PLANS,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(principal: Principal, family: Family): Promise<void> {
    const limit = this.plans.get(principal.plan).rateLimits[family];
    const key = `${principal.accountId}:${principal.keyId}:${family}`;
    // A burst window (the Dataset family's 1/s) is taken first: a call the main window then refuses
    // has used a burst slot, which can delay the next call by at most the burst window.
    const windows: [string, { max: number; windowMs: number }][] = [];
    if (limit.burst) windows.push([`${key}:burst`, limit.burst]);
    windows.push([key, limit]);
    for (const [bucket, { max, windowMs }] of windows) {
      const waitMs = await this.store.take(bucket, max, windowMs, this.now());
      if (waitMs !== null) {
        throw new RateLimitError(
          `Rate limit exceeded: ${max} request(s) per ${windowMs / 1000} s for ${family}`,
          Math.max(1, Math.ceil(waitMs / 1000)),
        );
      }
    }
  }
}

const stores = new WeakMap<Services, RateLimitStore>();

/** The rate-limit store of a service graph: Redis when the deployment has one, else this process's memory. */
export function rateLimitStoreFor(services: Services): RateLimitStore {
  let store = stores.get(services);
  if (!store) {
    store = services.redis ? new RedisRateLimitStore(services.redis) : new MemoryRateLimitStore();
    stores.set(services, store);
  }
  return store;
}

const limiters = new WeakMap<Services, RateLimiter>();

/** The process's limiter for a service graph (every transport of one process shares it). */
export function rateLimiterFor(services: Services): RateLimiter {
  let limiter = limiters.get(services);
  if (!limiter) {
    // Read at every call, so that a test can swap the graph's clock (see Services.rateLimitClock).
    limiter = new RateLimiter(rateLimitStoreFor(services), services.plans, () =>
      services.rateLimitClock.now(),
    );
    limiters.set(services, limiter);
  }
  return limiter;
}
