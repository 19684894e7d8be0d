import { RateLimitError } from '../errors';
import type { Services } from '../services/services';
import { MemoryRateLimitStore, RateLimitStore } from './rate-limit-store';
import { rateLimitStoreFor } from './rate-limiter';

const WINDOW_MS = 60_000;

/**
 * A count of events per client address per fixed minute window, kept in the service's
 * RateLimitStore (memory, or Redis shared by every process). Over the limit `check` throws
 * RateLimitError (429 with Retry-After over REST, extensions.code RATE_LIMITED over GraphQL) with
 * the message `describe` gives. Separate from the per-key limits of the metered API, which it
 * never touches.
 */
export class PerAddressRateLimiter {
  constructor(
    private readonly perMinute: number,
    private readonly describe: (perMinute: number) => string,
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
    /** Separates this limiter's counts from other limiters' in a shared store. */
    private readonly name = 'address',
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws when the address has used up its minute; counts nothing. */
  async check(clientIp: string): Promise<void> {
    const { count, resetInMs } = await this.store.peek(this.keyOf(clientIp), this.now());
    if (count >= this.perMinute) {
      throw new RateLimitError(this.describe(this.perMinute), Math.max(1, Math.ceil(resetInMs / 1000)));
    }
  }

  /** Counts one event of the address. */
  async count(clientIp: string): Promise<void> {
    await this.store.add(this.keyOf(clientIp), WINDOW_MS, this.now());
  }

  /** check, then count: a limit on requests. */
  async consume(clientIp: string): Promise<void> {
    await this.check(clientIp);
    await this.count(clientIp);
  }

  private keyOf(clientIp: string): string {
    return `${this.name}:${clientIp || 'unknown'}`;
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
    const store = rateLimitStoreFor(services);
    found = {
      catalogue: new PerAddressRateLimiter(
        services.config.PUBLIC_RATE_LIMIT_PER_MINUTE,
        (n) => `Rate limit exceeded: ${n} request(s) per minute per client address for the public catalogue`,
        store,
        'public',
      ),
      failedAuth: new PerAddressRateLimiter(
        services.config.AUTH_FAILURES_PER_MINUTE,
        (n) => `Too many failed API keys: ${n} per minute per client address; retry later`,
        store,
        'auth-failures',
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
