import { RateLimitError } from '../errors';
import { BUILT_IN_PLANS, Family, PlanCatalog } from '../plans/plan-catalog';
import type { Principal } from '../services/caller';
import type { Services } from '../services/services';

interface Bucket {
  /** Times (ms) of the accepted calls still inside the window, oldest first. */
  times: number[];
  windowMs: number;
}

/** Buckets are swept of quiet ones after this many checks, so a long-lived process stays bounded. */
const SWEEP_EVERY = 10_000;

/**
 * Per-key, per-family rate limits over a sliding window (the plan's max calls per windowMs). The
 * @RateLimited guard calls `consume` for every metered field, so REST (which runs the same fields)
 * gets the same limits. It lives in the GraphQL layer (services stay transport-free): one limiter
 * per service graph. Refused calls are not counted. Over the limit: RateLimitError with the seconds
 * until the oldest call leaves the window.
 *
 * Written here rather than taken from graphql-rate-limit, which was made for graphql 14/15 (npm
 * warned about its peer range on every install) and whose asynchronous store let concurrent checks
 * of one bucket all pass; this check is synchronous, so it needs no queue.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private checks = 0;

  constructor(
    private readonly plans: PlanCatalog = BUILT_IN_PLANS,
    private readonly now: () => number = Date.now,
  ) {}

  async consume(principal: Principal, family: Family): Promise<void> {
    const limit = this.plans.get(principal.plan).rateLimits[family];
    const now = this.now();
    if (++this.checks % SWEEP_EVERY === 0) this.sweep(now);
    const key = `${principal.accountId}:${principal.keyId}:${family}`;
    // Both windows are checked before either counts the call: a refused call is not counted.
    const windows: [string, { max: number; windowMs: number }][] = [[key, limit]];
    if (limit.burst) windows.push([`${key}:burst`, limit.burst]);
    const buckets = windows.map(([k, { max, windowMs }]) => {
      const bucket = this.buckets.get(k) ?? { times: [], windowMs };
      bucket.windowMs = windowMs;
      while (bucket.times.length > 0 && bucket.times[0] <= now - windowMs) bucket.times.shift();
      if (bucket.times.length >= max) {
        const retryAfter = Math.max(1, Math.ceil((bucket.times[0] + windowMs - now) / 1000));
        throw new RateLimitError(
          `Rate limit exceeded: ${max} request(s) per ${windowMs / 1000} s for ${family}`,
          retryAfter,
        );
      }
      return [k, bucket] as const;
    });
    for (const [k, bucket] of buckets) {
      bucket.times.push(now);
      this.buckets.set(k, bucket);
    }
  }

  private sweep(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const last = bucket.times[bucket.times.length - 1];
      if (last === undefined || last <= now - bucket.windowMs) this.buckets.delete(key);
    }
  }
}

const limiters = new WeakMap<Services, RateLimiter>();

/** The process's limiter for a service graph (every transport of one process shares it). */
export function rateLimiterFor(services: Services): RateLimiter {
  let limiter = limiters.get(services);
  if (!limiter) {
    limiter = new RateLimiter(services.plans);
    limiters.set(services, limiter);
  }
  return limiter;
}
