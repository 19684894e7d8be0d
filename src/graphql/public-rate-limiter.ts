import { RateLimitError } from '../errors';
import type { Services } from '../services/services';

interface Window {
  count: number;
  resetAt: number;
}

/** Windows kept before expired ones are swept (a sweep is cheap: one pass over the map). */
const SWEEP_AT = 10_000;
const WINDOW_MS = 60_000;

/**
 * The limit of the public (keyless) catalogue: PUBLIC_RATE_LIMIT_PER_MINUTE requests per client IP
 * per fixed minute window, in process memory. Over it: RateLimitError (429 with Retry-After over
 * REST, extensions.code RATE_LIMITED over GraphQL). Separate from the per-key limits of the metered
 * API, which it never touches.
 */
export class PublicRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  consume(clientIp: string): void {
    const now = this.now();
    const key = clientIp || 'unknown';
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= SWEEP_AT) this.sweep(now);
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    if (window.count >= this.perMinute) {
      throw new RateLimitError(
        `Rate limit exceeded: ${this.perMinute} request(s) per minute per client address for the public catalogue`,
        Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
      );
    }
    window.count++;
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

const limiters = new WeakMap<Services, PublicRateLimiter>();

/** The process's public limiter for a service graph (REST and GraphQL share it). */
export function publicRateLimiterFor(services: Services): PublicRateLimiter {
  let limiter = limiters.get(services);
  if (!limiter) {
    limiter = new PublicRateLimiter(services.config.PUBLIC_RATE_LIMIT_PER_MINUTE);
    limiters.set(services, limiter);
  }
  return limiter;
}
