import { Between, In } from 'typeorm';
import { Database } from './database';
import { SiteEntity, SiteMonthTechnologyEntity, SiteTechnologyEntity } from './entities';
import { hydrate, rawSqlOf, type RawSql } from './raw-sql';

/**
 * The reads of a stored lookup (Lookup v2, Live/Crawl v2's `sets=` and their callbacks): a site's
 * current technologies, its monthly history, and when each technology was last confirmed. The
 * current technologies are the read every stored Lookup v2 makes on a cache miss, so they are a
 * prepared statement (RawSql), not the query builder; the history reads are rarer and use TypeORM.
 */
export class StoredSiteRepository {
  constructor(
    private readonly db: Database,
    private readonly sql: RawSql = rawSqlOf(db),
  ) {}

  /** A raw row of the sites table (as SiteRowLoader returns it) as an entity. */
  site(row: Record<string, unknown>): SiteEntity {
    return hydrate(this.db, SiteEntity, row);
  }

  /** The site's current technologies, by confidence (highest first), then slug. */
  async currentTechnologies(siteId: number): Promise<SiteTechnologyEntity[]> {
    const rows = await this.sql.all<Record<string, unknown>>(
      'SELECT slug, name, versions, confidence, confirmed_at, fingerprints_version FROM site_technologies ' +
        'WHERE site_id = ? ORDER BY confidence DESC, slug ASC',
      [siteId],
    );
    return rows.map((row) => hydrate(this.db, SiteTechnologyEntity, row));
  }

  /** The site's monthly technologies from month `from` to month `to` (YYYY-MM, both included), oldest first. */
  monthTechnologies(siteId: number, from: string, to: string): Promise<SiteMonthTechnologyEntity[]> {
    return this.db.manager.find(SiteMonthTechnologyEntity, {
      where: { siteId, month: Between(from, to) },
      order: { month: 'ASC', confidence: 'DESC', slug: 'ASC' },
    });
  }

  /** When each of these technologies of the site was last confirmed (those it still has). */
  async confirmedAt(siteId: number, slugs: readonly string[]): Promise<Map<string, Date>> {
    const rows = await this.db.manager.find(SiteTechnologyEntity, {
      where: { siteId, slug: In([...slugs]) },
      select: { slug: true, confirmedAt: true },
    });
    return new Map(rows.map((row) => [row.slug, row.confirmedAt]));
  }
}
