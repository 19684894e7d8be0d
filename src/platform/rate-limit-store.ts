/**
 * Where rate-limit counts live: process memory by default, Redis (src/redis/redis-rate-limit-store.ts)
 * when several processes must share them (REDIS_URL). Each operation is atomic in its store, so
 * concurrent requests of one key never all pass.
 */
export interface RateLimitStore {
  /**
   * Sliding window: records one call under `key` when fewer than `max` were recorded in the last
   * `windowMs`, and returns null; otherwise records nothing and returns the milliseconds until the
   * oldest recorded call leaves the window.
   */
  take(key: string, max: number, windowMs: number, now: number): Promise<number | null>;
  /** Fixed window: the count of `key`'s current window and the milliseconds until it resets. */
  peek(key: string, now: number): Promise<{ count: number; resetInMs: number }>;
  /**
   * Fixed window: counts one event of `key` (a new window of `windowMs` starts when none is open)
   * and returns the window as it is after that event.
   */
  add(key: string, windowMs: number, now: number): Promise<FixedWindow>;
}

/** A fixed window's count and the milliseconds until it resets (0 and 0 when none is open). */
export interface FixedWindow {
  count: number;
  resetInMs: number;
}

interface Bucket {
  /** Times (ms) of the accepted calls still inside the window, oldest first. */
  times: number[];
  windowMs: number;
}

interface Window {
  count: number;
  resetAt: number;
}

/** Entries are swept of expired ones past this size, so a long-lived process stays bounded. */
const SWEEP_AT = 10_000;

/** One process's counts (the default, and all a single API process needs). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly windows = new Map<string, Window>();

  async take(key: string, max: number, windowMs: number, now: number): Promise<number | null> {
    const bucket = this.buckets.get(key) ?? { times: [], windowMs };
    bucket.windowMs = windowMs;
    while (bucket.times.length > 0 && bucket.times[0] <= now - windowMs) bucket.times.shift();
    if (bucket.times.length >= max) return bucket.times[0] + windowMs - now;
    if (!this.buckets.has(key) && this.buckets.size >= SWEEP_AT) this.sweepBuckets(now);
    bucket.times.push(now);
    this.buckets.set(key, bucket);
    return null;
  }

  async peek(key: string, now: number): Promise<FixedWindow> {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { count: 0, resetInMs: 0 };
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async add(key: string, windowMs: number, now: number): Promise<FixedWindow> {
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= SWEEP_AT) this.sweepWindows(now);
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  private sweepBuckets(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const last = bucket.times[bucket.times.length - 1];
      if (last === undefined || last <= now - bucket.windowMs) this.buckets.delete(key);
    }
  }

  private sweepWindows(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
