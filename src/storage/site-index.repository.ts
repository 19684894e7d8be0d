import { EntityManager, In, MoreThanOrEqual } from 'typeorm';
import { Database } from './database';
import {
  DomainRankEntity,
  ObservedHostnameEntity,
  SiteEnrichmentEntity,
  SiteEntity,
  SiteLanguageEntity,
  SiteMonthEntity,
  SiteTechnologyEntity,
} from './entities';
import { rawSqlOf, type RawSql } from './raw-sql';

/** A technology on a site, by the site's index key (its hostname). */
export interface SiteTechnologyRef {
  hostname: string;
  slug: string;
}

/** A month of a site's stored history: its languages (JSON list). */
export interface HistoryMonthRow {
  month: string;
  languages: string;
}

/** A technology of a month of a site's stored history (categories and versions: JSON lists). */
export interface HistoryTechnologyRow {
  month: string;
  slug: string;
  name: string;
  categories: string;
  versions: string;
  hits: number;
  confidence: number;
}

/** What one analysis changes on its site's row (see recordAnalysis). */
export interface SiteAnalysis {
  languages: string;
  language: string | null;
  title: string | null;
  languageCount: number;
  /** The scheme the site answered on. */
  scheme: 'http' | 'https';
  /** Page views recorded by the analysis, added to the site's hits. */
  pages: number;
  at: Date;
}

/** A host name seen somewhere (sites' pages, DNS, certificates, subdomain sources). */
export interface ObservedHostname {
  domain: string;
  name: string;
  source: string;
  at: Date;
}

/** Slugs per IN list when counting the sites of many technologies. */
const SLUGS_PER_COUNT = 500;

/**
 * The site index's statements: sites, their technologies, monthly history, enriched records,
 * languages and host names. The writes of one analysis take the caller's EntityManager (its
 * transaction); reads on the stored-lookup path use prepared statements (RawSql).
 */
export class SiteIndexRepository {
  constructor(
    private readonly db: Database,
    private readonly sql: RawSql = rawSqlOf(db),
  ) {}

  // ---- one analysis ----

  siteExists(m: EntityManager, hostname: string): Promise<boolean> {
    return m.exists(SiteEntity, { where: { hostname } });
  }

  /** The rank of a domain in the imported ranked list, if it is on it. */
  async importedRank(m: EntityManager, domain: string): Promise<number | null> {
    const ranked = await m.findOne(DomainRankEntity, { where: { domain }, select: { rank: true } });
    return ranked ? ranked.rank : null;
  }

  /** Adds a site row unless one with its hostname exists (another analysis may have added it). */
  async insertSiteIfMissing(m: EntityManager, values: Partial<SiteEntity>): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(SiteEntity)
      .values(values)
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  /**
   * The site's row, locked for the rest of the transaction on MySQL/MariaDB (SQLite runs one
   * transaction at a time, see Database), so that concurrent analyses of one site take turns.
   */
  lockedSite(m: EntityManager, hostname: string): Promise<SiteEntity> {
    const lock = this.db.rowLock('pessimistic_write');
    return m.findOneOrFail(SiteEntity, { where: { hostname }, ...(lock ? { lock: { mode: lock } } : {}) });
  }

  /** Stores what an analysis saw on the site's row, adding its page views to the site's hits. */
  async recordAnalysis(m: EntityManager, siteId: number, analysis: SiteAnalysis): Promise<void> {
    await m.update(
      SiteEntity,
      { id: siteId },
      {
        languages: analysis.languages,
        language: analysis.language,
        title: analysis.title,
        languageCount: analysis.languageCount,
        scheme: analysis.scheme,
        hits: () => `hits + ${analysis.pages}`,
        lastAnalyzedAt: analysis.at,
        crawlAttemptedAt: analysis.at,
      },
    );
  }

  async insertLanguageIfMissing(m: EntityManager, siteId: number, language: string): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(SiteLanguageEntity)
      .values({ language, siteId })
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  /** The site's row of `month`, added empty when missing. */
  async insertMonthIfMissing(m: EntityManager, siteId: number, month: string): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(SiteMonthEntity)
      .values({ siteId, month, languages: '[]', hits: 0 })
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  /** Stores a month's languages (JSON list) and adds `pages` page views to its hits. */
  async recordMonthPages(
    m: EntityManager,
    siteId: number,
    month: string,
    languages: string,
    pages: number,
  ): Promise<void> {
    await m.update(SiteMonthEntity, { siteId, month }, { languages, hits: () => `hits + ${pages}` });
  }

  /** A host name seen again (its last-seen time), or for the first time. */
  async upsertHostname(m: EntityManager, seen: ObservedHostname): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(ObservedHostnameEntity)
      .values({
        domain: seen.domain,
        name: seen.name,
        source: seen.source,
        resolvable: null,
        firstSeenAt: seen.at,
        lastSeenAt: seen.at,
      })
      .orUpdate(['last_seen_at'], ['domain', 'name'])
      // An existing row has no new insert id on MySQL/MariaDB: TypeORM must not read one back.
      .updateEntity(false)
      .execute();
  }

  /** Stores (or replaces) a site's enriched record (JSON, without its events). */
  async upsertEnrichment(
    m: EntityManager,
    siteId: number,
    data: string,
    pages: number,
    at: Date,
  ): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(SiteEnrichmentEntity)
      .values({ siteId, data, pages, updatedAt: at })
      .orUpdate(['data', 'pages', 'updated_at'], ['site_id'])
      .updateEntity(false)
      .execute();
  }

  // ---- reads ----

  /** A site's stored enriched record (JSON), or null. A prepared statement: every stored Lookup v2 with sets= reads it. */
  async enrichmentData(siteId: number): Promise<string | null> {
    const [row] = await this.sql.all<{ data: string }>(
      'SELECT data FROM site_enrichments WHERE site_id = ?',
      [siteId],
    );
    return row ? row.data : null;
  }

  /** The months of a site's history from `from` (YYYY-MM) on, in order. */
  historyMonths(siteId: number, from: string): Promise<HistoryMonthRow[]> {
    return this.sql.all<HistoryMonthRow>(
      'SELECT month, languages FROM site_months WHERE site_id = ? AND month >= ? ORDER BY month',
      [siteId, from],
    );
  }

  /** The technologies of those months. */
  historyTechnologies(siteId: number, from: string): Promise<HistoryTechnologyRow[]> {
    return this.sql.all<HistoryTechnologyRow>(
      'SELECT month, slug, name, categories, versions, hits, confidence FROM site_month_technologies ' +
        'WHERE site_id = ? AND month >= ?',
      [siteId, from],
    );
  }

  /** The index's rows of these technologies on these sites, in the order of `refs` (null: none). */
  async technologiesOn(refs: readonly SiteTechnologyRef[]): Promise<(SiteTechnologyEntity | null)[]> {
    const m = this.db.manager;
    const sites = await m.find(SiteEntity, {
      where: { hostname: In([...new Set(refs.map((k) => k.hostname))]) },
    });
    const siteIds = new Map(sites.map((site) => [site.hostname, site.id]));
    const rows = sites.length
      ? await m.find(SiteTechnologyEntity, {
          where: {
            siteId: In(sites.map((site) => site.id)),
            slug: In([...new Set(refs.map((k) => k.slug))]),
          },
        })
      : [];
    const found = new Map(rows.map((row) => [`${row.siteId} ${row.slug}`, row]));
    return refs.map((k) => found.get(`${siteIds.get(k.hostname)} ${k.slug}`) ?? null);
  }

  /** Sites per technology, for these slugs (a slug on no site is missing from the map). */
  async sitesPerTechnology(slugs: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let j = 0; j < slugs.length; j += SLUGS_PER_COUNT) {
      const part = slugs.slice(j, j + SLUGS_PER_COUNT);
      const rows = (await this.db.query(
        `SELECT slug, COUNT(*) AS n FROM site_technologies WHERE slug IN (${part.map(() => '?').join(',')}) GROUP BY slug`,
        part,
      )) as { slug: string; n: number | string }[];
      for (const row of rows) counts.set(row.slug, Number(row.n));
    }
    return counts;
  }

  /** Sites per technology confirmed at or after `since` (one grouped count over the list index). */
  async sitesPerTechnologySince(since: Date): Promise<Map<string, number>> {
    const rows: { slug: string; sites: string | number }[] = await this.db.manager
      .createQueryBuilder(SiteTechnologyEntity, 'technology')
      .select('technology.slug', 'slug')
      .addSelect('COUNT(*)', 'sites')
      .where({ confirmedAt: MoreThanOrEqual(since) })
      .groupBy('technology.slug')
      .getRawMany();
    return new Map(rows.map((row) => [row.slug, Number(row.sites)]));
  }

  /**
   * Sites last analysed before `staleBefore` and not tried since `triedBefore`, most-trafficked
   * first (ranked before unranked, smallest rank, then most page views), at most `limit`.
   */
  staleSites(
    staleBefore: Date,
    triedBefore: Date,
    limit: number,
  ): Promise<Pick<SiteEntity, 'id' | 'hostname'>[]> {
    return this.db.manager
      .createQueryBuilder(SiteEntity, 's')
      .select(['s.id', 's.hostname'])
      .addSelect('CASE WHEN s.traffic_rank IS NULL THEN 1 ELSE 0 END', 'unranked')
      .where('s.last_analyzed_at < :staleBefore', { staleBefore })
      .andWhere('(s.crawl_attempted_at IS NULL OR s.crawl_attempted_at < :triedBefore)', { triedBefore })
      .orderBy('unranked', 'ASC')
      .addOrderBy('s.traffic_rank', 'ASC')
      .addOrderBy('s.hits', 'DESC')
      .limit(limit)
      .getMany();
  }
}
