import type { Fingerprints } from '../../detection';
import { ENRICHMENT_SETS, type SiteEnrichment } from '../../enrichment';
import { NotFoundError } from '../../errors';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { Database } from '../../storage/database';
import type { SiteEntity } from '../../storage/entities';
import { SiteGraphRepository, type VersionCountRow } from '../../storage/site-graph.repository';
import type { EnrichmentFields } from '../analysis/enrichment-fields';
import { technologyTimelines, type TechnologyTimeline } from '../changes/change-feed.service';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { storedFields } from '../lookup/stored-site-reader';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';
import { eventsOf, monthOf, parseList } from '../site-index/site-index.service';
import type { SitesInput } from './site-graph.contract';

/** A page of the sites running a technology (or any of a category's). */
export interface SitePage {
  sites: SiteEntity[];
  hasNextPage: boolean;
  /** Counts every matching site (a second statement): only run when totalCount is asked for. */
  count(): Promise<number>;
}

/** A month of a site's stored history. */
export interface SiteHistoryMonth {
  month: string;
  languages: string[];
  technologies: {
    slug: string;
    name: string;
    categories: string[];
    versions: string[];
    hits: number;
    confidence: number;
  }[];
}

/** The sites of the index a technology is on: for technology(slug) or category(slug). */
export interface RunningWhat {
  slugs: readonly string[];
}

/**
 * The index as a graph: the sites that run a technology or a category's technologies (paged by
 * site id, charged per site returned as site(domain) is), a technology's version distribution, and
 * the per-site reads of the graph's site nodes, each made for many sites in one statement (the
 * request's dataloaders call them with every site of the page at once).
 */
export class SiteGraphService {
  private readonly repository: SiteGraphRepository;
  private readonly fingerprintsNow: () => Fingerprints;
  /** The clock that says which month is current (history). */
  clock: { now(): number } = { now: () => Date.now() };

  constructor(
    db: Database,
    private readonly metering: MeteringService,
    engines: EngineSource,
  ) {
    this.repository = new SiteGraphRepository(db);
    this.fingerprintsNow = fingerprintsOf(engines);
  }

  /** The slugs of a technology, or of a category's technologies (NOT_FOUND for an unknown slug). */
  running(kind: 'technology' | 'category', slug: string): RunningWhat {
    const fingerprints = this.fingerprintsNow();
    if (kind === 'technology') {
      if (!fingerprints.technologyBySlug(slug))
        throw new NotFoundError(`No technology with slug ${JSON.stringify(slug)}`);
      return { slugs: [slug] };
    }
    const category = fingerprints.categoryBySlug(slug);
    if (!category) throw new NotFoundError(`No category with slug ${JSON.stringify(slug)}`);
    return { slugs: fingerprints.technologiesInCategory(category.id).map((t) => t.slug) };
  }

  /** One page of the sites running it, by site id. 1 credit per site returned (an empty page is free). */
  async sites(caller: Caller, what: RunningWhat, input: SitesInput): Promise<SitePage> {
    const query = {
      slugs: what.slugs,
      live: input.live,
      countries: input.countries ?? [],
      rankFrom: input.rankFrom,
      rankTo: input.rankTo,
      version: input.version,
    };
    const count = () => (query.slugs.length ? this.repository.countSitesRunning(query) : Promise.resolve(0));
    return this.metering.run(
      caller,
      {
        minimumCost: 0,
        cost: (page) => page.sites.length * CREDIT_PRICES.graphSite.credits,
        reason: CREDIT_PRICES.graphSite.endpoint,
        readOnly: true,
      },
      async () => {
        if (query.slugs.length === 0) return { sites: [], hasNextPage: false, count };
        const afterId = input.after !== undefined ? Number(input.after) : undefined;
        const rows = await this.repository.sitesRunning(query, afterId, input.first + 1);
        return { sites: rows.slice(0, input.first), hasNextPage: rows.length > input.first, count };
      },
    );
  }

  /** The sites on which a technology is live, per best version ('' unknown), most sites first. */
  versions(slug: string): Promise<VersionCountRow[]> {
    this.running('technology', slug);
    return this.repository.versionCounts(slug);
  }

  // ---- batches of the request's dataloaders: one statement per kind of row for every site asked ----

  /** Sites by index key, in the order asked (null: not in the index). */
  async sitesByHostname(hostnames: readonly string[]): Promise<(SiteEntity | null)[]> {
    const rows = await this.repository.sitesByHostname(hostnames);
    const byHostname = new Map(rows.map((r) => [r.hostname, r]));
    return hostnames.map((h) => byHostname.get(h) ?? null);
  }

  /** The technologies of each site with their timelines, live ones first. */
  async timelines(siteIds: readonly number[]): Promise<TechnologyTimeline[][]> {
    const [technologies, versions, liveVersions] = await Promise.all([
      this.repository.technologiesOf(siteIds),
      this.repository.versionsOf(siteIds),
      this.repository.liveVersionsOf(siteIds),
    ]);
    return siteIds.map((id) =>
      technologyTimelines(
        technologies.filter((t) => t.siteId === id),
        versions.filter((v) => v.siteId === id),
        liveVersions.filter((v) => v.siteId === id),
      ),
    );
  }

  /** Each site's stored enriched record, every field set, flat (null: never enriched). */
  async enrichments(sites: readonly SiteEntity[]): Promise<(EnrichmentFields | null)[]> {
    const rows = await this.repository.enrichmentsOf(sites.map((s) => s.id));
    const bySite = new Map(rows.map((r) => [Number(r.siteId), r.data]));
    return sites.map((site) => {
      const data = bySite.get(site.id);
      if (data === undefined) return null;
      const stored = JSON.parse(data) as Omit<SiteEnrichment, 'events'>;
      return storedFields(site, { ...stored, events: eventsOf(site) }, ENRICHMENT_SETS);
    });
  }

  /** Each site's history from `months` months ago to the current month, oldest first. */
  async histories(siteIds: readonly number[], months: number): Promise<SiteHistoryMonth[][]> {
    const now = new Date(this.clock.now());
    const from = monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1), 1)));
    const rows = await this.repository.historyOf(siteIds, from);
    return siteIds.map((id) =>
      rows.months
        .filter((m) => m.siteId === id)
        .map((m) => ({
          month: m.month,
          languages: parseList(m.languages),
          technologies: rows.technologies
            .filter((t) => t.siteId === id && t.month === m.month)
            .map((t) => ({
              slug: t.slug,
              name: t.name,
              categories: parseList(t.categories),
              versions: parseList(t.versions),
              hits: Number(t.hits),
              confidence: Number(t.confidence),
            })),
        })),
    );
  }
}
