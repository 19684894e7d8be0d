import type { GraphQLResolveInfo } from 'graphql';
import { getGraphQLRateLimiter, Identity, InMemoryStore } from 'graphql-rate-limit';
import { RateLimitError } from '../errors';
import { Family, PLANS } from '../plans/plan-catalog';
import type { Principal } from '../services/caller';
import type { Services } from '../services/services';

/**
 * Keeps the call timestamps graphql-rate-limit needs, and prunes identities that went quiet so a
 * long-running process does not grow without bound.
 */
class PruningStore extends InMemoryStore {
  private writes = 0;

  setForIdentity(identity: Identity, timestamps: readonly number[]): void {
    super.setForIdentity(identity, timestamps);
    if (++this.writes % 10_000 === 0) this.prune();
  }

  private prune(): void {
    const horizon = Date.now() - 60_000;
    const state = this.state as Record<string, Record<string, readonly number[]>>;
    for (const [who, fields] of Object.entries(state)) {
      for (const [field, times] of Object.entries(fields))
        if (!times.some((t) => t > horizon)) delete fields[field];
      if (Object.keys(fields).length === 0) delete state[who];
    }
  }
}

/**
 * Per-key, per-family rate limits with graphql-rate-limit's limiter. The @RateLimited guard calls
 * `consume` for every metered field, so REST (which runs the same fields) gets the same limits.
 * It lives in the GraphQL layer (services stay transport-free): one limiter per service graph.
 * Over the limit: RateLimitError with the seconds until the oldest call leaves the window.
 */
export class RateLimiter {
  private readonly store = new PruningStore();
  private readonly limiter = getGraphQLRateLimiter({
    identifyContext: (principal: Principal) => `${principal.accountId}:${principal.keyId}`,
    store: this.store,
    formatError: ({ fieldName, max, window }) =>
      `Rate limit exceeded: ${max} request(s) per ${window / 1000} s for ${fieldName}`,
  });

  /** The last check queued per key and family (see consume). */
  private readonly pending = new Map<string, Promise<void>>();

  /**
   * graphql-rate-limit reads the timestamps, awaits, then writes them back, so concurrent checks
   * of one bucket (aliased fields of one document, parallel requests) would all read the same
   * state and all pass. Checks of one bucket therefore run one after another.
   */
  consume(principal: Principal, family: Family): Promise<void> {
    const bucket = `${principal.accountId}:${principal.keyId}:${family}`;
    const run = (this.pending.get(bucket) ?? Promise.resolve()).then(() => this.check(principal, family));
    const settled = run.catch(() => undefined);
    this.pending.set(bucket, settled);
    void settled.then(() => {
      if (this.pending.get(bucket) === settled) this.pending.delete(bucket);
    });
    return run;
  }

  private async check(principal: Principal, family: Family): Promise<void> {
    const { max, windowMs } = PLANS[principal.plan].rateLimits[family];
    const info = { fieldName: family } as GraphQLResolveInfo;
    const message = await this.limiter(
      { parent: undefined, args: {}, context: principal, info },
      { max, window: `${windowMs}ms`, uncountRejected: true },
    );
    if (!message) return;
    const times = this.store.getForIdentity({
      contextIdentity: `${principal.accountId}:${principal.keyId}`,
      fieldIdentity: family,
    });
    const oldest = Math.min(...times);
    const retryAfter = Math.max(1, Math.ceil((oldest + windowMs - Date.now()) / 1000));
    throw new RateLimitError(message, retryAfter);
  }
}

const limiters = new WeakMap<Services, RateLimiter>();

/** The process's limiter for a service graph (every transport of one process shares it). */
export function rateLimiterFor(services: Services): RateLimiter {
  let limiter = limiters.get(services);
  if (!limiter) {
    limiter = new RateLimiter();
    limiters.set(services, limiter);
  }
  return limiter;
}
