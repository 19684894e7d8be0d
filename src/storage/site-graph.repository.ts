import { In, type SelectQueryBuilder } from 'typeorm';
import type { Database } from './database';
import {
  SiteEnrichmentEntity,
  SiteEntity,
  SiteMonthEntity,
  SiteMonthTechnologyEntity,
  SiteTechnologyEntity,
  SiteTechnologyLiveVersionEntity,
  SiteTechnologyVersionEntity,
} from './entities';

/** Which sites run some technologies: every condition given narrows them. */
export interface SitesRunningQuery {
  /** Sites with any of these technologies (a category's members, or one technology). */
  slugs: readonly string[];
  /** true: the technology is live on the site; false: it was removed from it. */
  live: boolean;
  /** Empty: any country (unknown included). */
  countries: readonly string[];
  /** Traffic rank range, inclusive: a bound given leaves unranked sites out. */
  rankFrom?: number;
  rankTo?: number;
  /** The technology's best version is this one or one under it (3 matches 3, 3.1, not 30). */
  version?: string;
}

/** A version of a technology and the sites whose best version it is. */
export interface VersionCountRow {
  version: string;
  sites: number;
}

/**
 * The index read as a graph (GraphQL's site, technology and category nodes): the sites running a
 * technology, paged by site id, and the per-site reads batched over many sites at once (one
 * statement per kind of row, whatever the number of sites), for the request's dataloaders.
 */
export class SiteGraphRepository {
  constructor(private readonly db: Database) {}

  /** A page of the sites running it, by ascending site id, after `afterId`. */
  sitesRunning(query: SitesRunningQuery, afterId: number | undefined, take: number): Promise<SiteEntity[]> {
    const builder = this.sitesWhere(query).orderBy('s.id', 'ASC').limit(take);
    if (afterId !== undefined) builder.andWhere('s.id > :afterId', { afterId });
    return builder.getMany();
  }

  /** How many sites the query matches (the rows of the technologies matched are counted). */
  countSitesRunning(query: SitesRunningQuery): Promise<number> {
    return this.sitesWhere(query).getCount();
  }

  private sitesWhere(query: SitesRunningQuery): SelectQueryBuilder<SiteEntity> {
    const running = this.db.manager
      .createQueryBuilder(SiteTechnologyEntity, 'st')
      .select('st.site_id')
      .where('st.slug IN (:...slugs)')
      .andWhere('st.live = :live');
    if (query.version !== undefined) running.andWhere('(st.version = :version OR st.version LIKE :under)');
    const builder = this.db.manager
      .createQueryBuilder(SiteEntity, 's')
      .where(`s.id IN (${running.getQuery()})`, {
        slugs: query.slugs,
        live: query.live,
        ...(query.version !== undefined ? { version: query.version, under: `${query.version}.%` } : {}),
      });
    if (query.countries.length)
      builder.andWhere('s.country IN (:...countries)', { countries: query.countries });
    if (query.rankFrom !== undefined)
      builder.andWhere('s.traffic_rank >= :rankFrom', { rankFrom: query.rankFrom });
    if (query.rankTo !== undefined) builder.andWhere('s.traffic_rank <= :rankTo', { rankTo: query.rankTo });
    return builder;
  }

  /** The sites on which it is live, per best version ('' when unknown), most sites first. */
  async versionCounts(slug: string): Promise<VersionCountRow[]> {
    const rows: { version: string; sites: number | string }[] = await this.db.manager
      .createQueryBuilder(SiteTechnologyEntity, 'st')
      .select('st.version', 'version')
      .addSelect('COUNT(*)', 'sites')
      .where('st.slug = :slug', { slug })
      .andWhere('st.live = :live', { live: true })
      .groupBy('st.version')
      .getRawMany();
    return rows
      .map((r) => ({ version: String(r.version ?? ''), sites: Number(r.sites) }))
      .sort((a, b) => b.sites - a.sites || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  }

  /** Sites by index key. */
  sitesByHostname(hostnames: readonly string[]): Promise<SiteEntity[]> {
    return this.db.manager.find(SiteEntity, { where: { hostname: In([...hostnames]) } });
  }

  /** The technology rows of these sites, live ones first (one statement). */
  technologiesOf(siteIds: readonly number[]): Promise<SiteTechnologyEntity[]> {
    return this.db.manager.find(SiteTechnologyEntity, {
      where: { siteId: In([...siteIds]) },
      order: { live: 'DESC', confidence: 'DESC', slug: 'ASC' },
    });
  }

  /** The version sightings of these sites, in the order first seen (one statement). */
  versionsOf(siteIds: readonly number[]): Promise<SiteTechnologyVersionEntity[]> {
    return this.db.manager.find(SiteTechnologyVersionEntity, {
      where: { siteId: In([...siteIds]) },
      order: { firstSeenAt: 'ASC', version: 'ASC' },
    });
  }

  /** The versions these sites run now (one statement). */
  liveVersionsOf(siteIds: readonly number[]): Promise<SiteTechnologyLiveVersionEntity[]> {
    return this.db.manager.find(SiteTechnologyLiveVersionEntity, {
      where: { siteId: In([...siteIds]) },
      select: { siteId: true, slug: true, version: true },
    });
  }

  /** The stored enriched records of these sites (one statement). */
  enrichmentsOf(siteIds: readonly number[]): Promise<SiteEnrichmentEntity[]> {
    return this.db.manager.find(SiteEnrichmentEntity, { where: { siteId: In([...siteIds]) } });
  }

  /** The months of these sites' history from `from` (YYYY-MM), with their technologies (two statements). */
  async historyOf(
    siteIds: readonly number[],
    from: string,
  ): Promise<{ months: SiteMonthEntity[]; technologies: SiteMonthTechnologyEntity[] }> {
    const months = await this.db.manager
      .createQueryBuilder(SiteMonthEntity, 'm')
      .where('m.site_id IN (:...siteIds)', { siteIds })
      .andWhere('m.month >= :from', { from })
      .orderBy('m.month', 'ASC')
      .getMany();
    if (months.length === 0) return { months, technologies: [] };
    const technologies = await this.db.manager
      .createQueryBuilder(SiteMonthTechnologyEntity, 't')
      .where('t.site_id IN (:...siteIds)', { siteIds })
      .andWhere('t.month >= :from', { from })
      .orderBy('t.hits', 'DESC')
      .addOrderBy('t.slug', 'ASC')
      .getMany();
    return { months, technologies };
  }
}
