import { RateLimitError } from '../../errors';
import { AddressBlockedEvent, EventBus, TOPICS } from '../../platform/event-bus';
import type { Services } from '../services';
import { FixedWindow, MemoryRateLimitStore, RateLimitStore } from '../../platform/rate-limit-store';
import { rateLimitStoreFor } from './rate-limiter';

const WINDOW_MS = 60_000;

/** Blocked addresses kept before the expired ones are swept, so that a long-lived process stays bounded. */
const SWEEP_AT = 10_000;

/**
 * A count of events per client address per fixed minute window, kept in the service's
 * RateLimitStore (memory, or Redis shared by every process). Over the limit `check` throws
 * RateLimitError (429 with Retry-After over REST, extensions.code RATE_LIMITED over GraphQL) with
 * the message `describe` gives. Separate from the per-key limits of the metered API, which it
 * never touches.
 */
export class PerAddressRateLimiter {
  /** Address key → the time (ms) its window resets, of the addresses over the limit (with `blockedBy`). */
  private readonly blocked = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly describe: (perMinute: number) => string,
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
    /** Separates this limiter's counts from other limiters' in a shared store. */
    private readonly name = 'address',
    private readonly now: () => number = Date.now,
    /**
     * Given, `check` reads only this process's list of blocked addresses: an address is put on it
     * when a count of this process reaches the limit, and on every process's through this bus's
     * `addressBlocked` event. Checked on every request (failed keys), the shared count would
     * otherwise cost a round trip to Redis each time for an event that is rare.
     */
    private readonly blockedBy?: EventBus,
  ) {
    if (blockedBy) this.listen(blockedBy);
  }

  /** Throws when the address has used up its minute; counts nothing. */
  async check(clientIp: string): Promise<void> {
    const key = this.keyOf(clientIp);
    const now = this.now();
    let resetInMs: number;
    if (this.blockedBy) {
      const until = this.blocked.get(key);
      if (until === undefined) return;
      if (until <= now) {
        this.blocked.delete(key);
        return;
      }
      resetInMs = until - now;
    } else {
      const window = await this.store.peek(key, now);
      if (window.count < this.perMinute) return;
      resetInMs = window.resetInMs;
    }
    this.refuse(resetInMs);
  }

  /** Counts one event of the address. */
  async count(clientIp: string): Promise<void> {
    await this.add(clientIp);
  }

  /**
   * A limit on requests: counts this one and throws when it is over the limit. Counting first makes
   * it one atomic step in the store (one round trip to Redis): a check and then a count let every
   * request that arrived before the others' counts through, so concurrent requests of one address
   * on several processes (or in one, with Redis) could pass the limit together.
   */
  async consume(clientIp: string): Promise<void> {
    if (this.blockedBy) await this.check(clientIp);
    const { count, resetInMs } = await this.add(clientIp);
    if (count > this.perMinute) this.refuse(resetInMs);
  }

  private async add(clientIp: string): Promise<FixedWindow> {
    const key = this.keyOf(clientIp);
    const now = this.now();
    const window = await this.store.add(key, WINDOW_MS, now);
    if (this.blockedBy && window.count >= this.perMinute) {
      const event: AddressBlockedEvent = { limiter: this.name, address: key, until: now + window.resetInMs };
      this.block(event);
      this.blockedBy.publish(TOPICS.addressBlocked, event);
    }
    return window;
  }

  private refuse(resetInMs: number): never {
    throw new RateLimitError(this.describe(this.perMinute), Math.max(1, Math.ceil(resetInMs / 1000)));
  }

  private keyOf(clientIp: string): string {
    return `${this.name}:${clientIp || 'unknown'}`;
  }

  private block({ address, until }: AddressBlockedEvent): void {
    if (until <= (this.blocked.get(address) ?? 0)) return;
    if (this.blocked.size >= SWEEP_AT) {
      const now = this.now();
      for (const [each, end] of this.blocked) if (end <= now) this.blocked.delete(each);
    }
    this.blocked.set(address, until);
  }

  private listen(events: EventBus): void {
    void (async () => {
      for await (const event of events.subscribe(TOPICS.addressBlocked)) {
        if ((event as AddressBlockedEvent).limiter === this.name) this.block(event as AddressBlockedEvent);
      }
    })();
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
        Date.now,
        services.events,
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
