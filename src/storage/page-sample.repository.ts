import type { EntityManager } from 'typeorm';
import { Database, dbDate } from './database';
import { PageSampleEntity } from './entities';

/** One stored sample as read back: the site, the page's URL, when it was captured and its data. */
export type PageSampleRow = Pick<PageSampleEntity, 'siteId' | 'url' | 'capturedAt' | 'data'>;

/** What storing a sample did: refreshed the site's, added one, or nothing (the store was full). */
export type SampleWrite = 'refreshed' | 'added' | 'full';

/** page_samples: one row per site (its front page), deleted with the site. */
export class PageSampleRepository {
  constructor(private readonly db: Database) {}

  /**
   * Refreshes the site's sample, or adds one while the table holds fewer than `max` rows: the count
   * and the insert are one statement, so concurrent writers of one SQLite file never pass `max`
   * (on MySQL/MariaDB, writers inserting at the same instant may each see the last free row).
   */
  async write(row: PageSampleRow, max: number, refreshOnly = false): Promise<SampleWrite> {
    return this.db.transaction(async (m: EntityManager) => {
      const updated = await m.update(
        PageSampleEntity,
        { siteId: row.siteId },
        { url: row.url, capturedAt: row.capturedAt, data: row.data },
      );
      if ((updated.affected ?? 0) > 0) return 'refreshed';
      if (refreshOnly) return 'full';
      await m.query(
        'INSERT INTO page_samples (site_id, url, captured_at, data) SELECT ?, ?, ?, ? ' +
          'FROM (SELECT COUNT(*) AS n FROM page_samples) c WHERE c.n < ?',
        [row.siteId, row.url, dbDate(this.db, row.capturedAt), row.data, max],
      );
      const added = await m.count(PageSampleEntity, { where: { siteId: row.siteId } });
      return added > 0 ? 'added' : 'full';
    });
  }

  /** Up to `limit` samples of sites after `afterSiteId`, in site order (a primary-key range). */
  batch(afterSiteId: number, limit: number): Promise<PageSampleRow[]> {
    return this.db.manager
      .createQueryBuilder(PageSampleEntity, 's')
      .where('s.site_id > :after', { after: afterSiteId })
      .orderBy('s.site_id', 'ASC')
      .limit(limit)
      .getMany();
  }

  count(): Promise<number> {
    return this.db.manager.count(PageSampleEntity);
  }
}
