import DataLoader from 'dataloader';
import type { SiteEntity, SiteTechnologyEntity } from '../storage/entities';
import type { Family } from '../plans/plan-catalog';
import type { EnrichmentFields } from '../services/analysis/enrichment-fields';
import type { CatalogueTechnology } from '../services/catalogue/catalogue.service';
import type { TechnologyTimeline } from '../services/changes/change-feed.service';
import type { SiteHistoryMonth } from '../services/site-graph/site-graph.service';
import type { TechnologyVulnerability } from '../services/vulns/exposure.contract';
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
  /** A site's technologies with their timelines, by site id. */
  siteTimeline: DataLoader<number, TechnologyTimeline[]>;
  /** A site's stored enriched record, by its row (keyed by site id). */
  siteEnrichment: DataLoader<SiteEntity, EnrichmentFields | null, number>;
  /** A site's history of the last `months` months. */
  siteHistory: DataLoader<{ siteId: number; months: number }, SiteHistoryMonth[], string>;
  /** The catalogue entry of a technology (null: not in the loaded fingerprints). */
  catalogueTechnology: DataLoader<string, CatalogueTechnology | null>;
  /**
   * The vulnerabilities of a technology at the versions a site runs now (none when none was
   * detected): every technology of every site in the answer matched against the records read in one
   * statement.
   */
  technologyVulnerabilities: DataLoader<TechnologyVersions, TechnologyVulnerability[], string>;
}

/** A technology and the versions a site runs of it now (none when none was detected). */
export interface TechnologyVersions {
  slug: string;
  versions: readonly string[];
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
  /**
   * The graph's index reads of this request (GraphRead fields: a technology's sites, versions and
   * changes, a site's changes): the families already counted against the key's rate limit, how many
   * such fields ran, and whether any ran (then the answer is not kept for the public catalogue).
   */
  graphReads: { families: Set<Family>; count: number } | null;
  /** The family a root field of this request counted (RateLimited): the graph's reads below it count no more. */
  rateCounted: Family | null;
  /** Some field of this request read what is not the public catalogue: its answer is not kept. */
  notKept: boolean;
}

function createLoaders(services: Services): Loaders {
  return {
    siteTechnology: new DataLoader(
      (keys: readonly SiteTechnologyKey[]) => services.siteIndex.technologiesOn(keys),
      { cacheKeyFn: (k) => `${k.hostname} ${k.slug}` },
    ),
    siteTimeline: new DataLoader((ids: readonly number[]) => services.siteGraph.timelines(ids)),
    siteEnrichment: new DataLoader((sites: readonly SiteEntity[]) => services.siteGraph.enrichments(sites), {
      cacheKeyFn: (site) => site.id,
    }),
    siteHistory: new DataLoader(
      async (keys: readonly { siteId: number; months: number }[]) => {
        // One read per distinct `months` (a document rarely asks for two).
        const answers = new Map<string, SiteHistoryMonth[]>();
        for (const months of new Set(keys.map((k) => k.months))) {
          const ids = keys.filter((k) => k.months === months).map((k) => k.siteId);
          const histories = await services.siteGraph.histories(ids, months);
          ids.forEach((id, i) => answers.set(`${id} ${months}`, histories[i]));
        }
        return keys.map((k) => answers.get(`${k.siteId} ${k.months}`)!);
      },
      { cacheKeyFn: (k) => `${k.siteId} ${k.months}` },
    ),
    catalogueTechnology: new DataLoader((slugs: readonly string[]) =>
      services.catalogue.technologiesBySlug(slugs),
    ),
    technologyVulnerabilities: new DataLoader(
      async (keys: readonly TechnologyVersions[]) =>
        (await services.exposure.vulnerabilitiesOfAll(keys)).found,
      { cacheKeyFn: (k) => `${k.slug}\n${k.versions.join('\n')}` },
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
  graphReads: { families: Set<Family>; count: number } | null = null;
  rateCounted: Family | null = null;
  notKept = false;

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
