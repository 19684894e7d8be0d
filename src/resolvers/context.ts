import DataLoader from 'dataloader';
import type { SiteTechnologyEntity } from '../storage/entities';
import { AppError, AuthError } from '../errors';
import { logger } from '../platform/logger';
import type { Caller } from '../services/platform/caller';
import { newMeter } from '../services/platform/caller';
import type { Services } from '../services/services';
import { failedAuthLimiterFor } from '../services/platform/public-rate-limiter';

/** A technology on a site, as the index knows it. */
export interface SiteTechnologyKey {
  /** Index key of the site (see siteKeyOf). */
  hostname: string;
  slug: string;
}

/**
 * Per-request batching: a result listing twenty technologies asks the index once for all their
 * first-seen times, not twenty times.
 */
export interface Loaders {
  siteTechnology: DataLoader<SiteTechnologyKey, SiteTechnologyEntity | null, string>;
}

export interface GraphQLContext {
  /** Null when the request carried no valid key; `authError` then says why. */
  caller: Caller | null;
  authError: AppError | null;
  requestId: string;
  /** The client's address (the public catalogue is limited per address). */
  clientIp: string;
  /**
   * The origin the client reached the service at (scheme://host[:port], see requestOrigin): the
   * download links of an answer start with it when PUBLIC_BASE_URL is unset.
   */
  origin: string;
  services: Services;
  loaders: Loaders;
  /**
   * This request was already counted against the per-address limit of the public catalogue (one
   * GraphQL operation counts once, however many public fields it selects: src/http/public-operations.ts).
   */
  publicCounted: boolean;
}

function createLoaders(services: Services): Loaders {
  return {
    siteTechnology: new DataLoader(
      (keys: readonly SiteTechnologyKey[]) => services.siteIndex.technologiesOn(keys),
      { cacheKeyFn: (k) => `${k.hostname} ${k.slug}` },
    ),
  };
}

/**
 * The one context builder of every transport (Apollo HTTP, the REST facade, graphql-ws). Auth is
 * resolved here once; a failure is kept, not thrown, so that the field guard turns it into the
 * right error for the transport (403 over REST, extensions.code over GraphQL).
 */
export async function buildContext(
  services: Services,
  apiKey: string | undefined,
  requestId: string,
  clientIp = '',
  origin = '',
): Promise<GraphQLContext> {
  // Guessing keys is throttled per client address: past the limit no key from it is looked at.
  const failures = failedAuthLimiterFor(services);
  try {
    if (apiKey) await failures.check(clientIp);
    const principal = await services.auth.authenticate(apiKey);
    return new RequestContext(
      services,
      requestId,
      clientIp,
      origin,
      { principal, requestId, meter: newMeter() },
      null,
    );
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (apiKey && error instanceof AuthError) {
      await failures.count(clientIp);
      // Never the key itself, not even part of it.
      logger.warn({ module: 'auth', requestId, clientIp, reason: error.message }, 'API key refused');
    }
    return new RequestContext(services, requestId, clientIp, origin, null, error);
  }
}

/**
 * A request's context, one class: every context has the same fields in the same order and its
 * getter on the prototype. (It was an object literal with a getter of its own, the caller fields
 * added after: a getter made per object gives each context a shape of its own, and every read of a
 * context field in the resolvers and guards then missed V8's inline caches.)
 */
export class RequestContext implements GraphQLContext {
  private made: Loaders | undefined = undefined;
  publicCounted = false;

  constructor(
    readonly services: Services,
    readonly requestId: string,
    readonly clientIp: string,
    readonly origin: string,
    readonly caller: Caller | null,
    readonly authError: AppError | null,
  ) {}

  /** Made on first use: few operations need them, and every request built them. */
  get loaders(): Loaders {
    return (this.made ??= createLoaders(this.services));
  }
}

/** The authenticated caller, or the auth error of this request. */
export function requireCaller(context: GraphQLContext): Caller {
  if (!context.caller) throw context.authError ?? new AuthError();
  return context.caller;
}
