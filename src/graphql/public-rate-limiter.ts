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
 * A count of events per client address per fixed minute window, in process memory. Over the limit
 * `check` throws RateLimitError (429 with Retry-After over REST, extensions.code RATE_LIMITED over
 * GraphQL) with the message `describe` gives. Separate from the per-key limits of the metered API,
 * which it never touches.
 */
export class PerAddressRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly perMinute: number,
    private readonly describe: (perMinute: number) => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws when the address has used up its minute; counts nothing. */
  check(clientIp: string): void {
    const now = this.now();
    const window = this.windows.get(clientIp || 'unknown');
    if (window && window.resetAt > now && window.count >= this.perMinute) {
      throw new RateLimitError(
        this.describe(this.perMinute),
        Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
      );
    }
  }

  /** Counts one event of the address. */
  count(clientIp: string): void {
    const now = this.now();
    const key = clientIp || 'unknown';
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      if (this.windows.size >= SWEEP_AT) this.sweep(now);
      window = { count: 0, resetAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.count++;
  }

  /** check, then count: a limit on requests. */
  consume(clientIp: string): void {
    this.check(clientIp);
    this.count(clientIp);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

interface AddressLimiters {
  /** The public (keyless) catalogue: PUBLIC_RATE_LIMIT_PER_MINUTE requests per address. */
  catalogue: PerAddressRateLimiter;
  /** Presented keys that failed: AUTH_FAILURES_PER_MINUTE per address, then every key is refused. */
  failedAuth: PerAddressRateLimiter;
}

const limiters = new WeakMap<Services, AddressLimiters>();

function limitersFor(services: Services): AddressLimiters {
  let found = limiters.get(services);
  if (!found) {
    found = {
      catalogue: new PerAddressRateLimiter(
        services.config.PUBLIC_RATE_LIMIT_PER_MINUTE,
        (n) => `Rate limit exceeded: ${n} request(s) per minute per client address for the public catalogue`,
      ),
      failedAuth: new PerAddressRateLimiter(
        services.config.AUTH_FAILURES_PER_MINUTE,
        (n) => `Too many failed API keys: ${n} per minute per client address; retry later`,
      ),
    };
    limiters.set(services, found);
  }
  return found;
}

/** The process's public limiter for a service graph (REST and GraphQL share it). */
export function publicRateLimiterFor(services: Services): PerAddressRateLimiter {
  return limitersFor(services).catalogue;
}

/** The process's limiter of failed authentications (REST, GraphQL and WebSocket share it). */
export function failedAuthLimiterFor(services: Services): PerAddressRateLimiter {
  return limitersFor(services).failedAuth;
}
