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
   * Refreshes the site's sample, or adds one while the table holds fewer than `max` rows. On
   * SQLite the count and the insert are one statement, so concurrent writers of one file never
   * pass `max`. On MySQL/MariaDB that statement (INSERT ... SELECT COUNT(*)) took a shared lock on
   * every row the count read, and the update before it a gap lock where the site's row was missing:
   * concurrent crawls deadlocked on them (about one sample in 70 lost with 2 workers, issue 35).
   * There the count is a plain read and the write one upsert; writers at the same instant may each
   * see the last free row, as before.
   */
  async write(row: PageSampleRow, max: number, refreshOnly = false): Promise<SampleWrite> {
    if (this.db.dialect !== 'sqlite') return this.writeMysql(row, max, refreshOnly);
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

  private async writeMysql(row: PageSampleRow, max: number, refreshOnly: boolean): Promise<SampleWrite> {
    const set = { url: row.url, capturedAt: row.capturedAt, data: row.data };
    const [{ n }] = await this.db.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM page_samples');
    if (refreshOnly || Number(n) >= max) {
      const updated = await this.db.manager.update(PageSampleEntity, { siteId: row.siteId }, set);
      return (updated.affected ?? 0) > 0 ? 'refreshed' : 'full';
    }
    const result = await this.db.query<{ affectedRows: number }>(
      'INSERT INTO page_samples (site_id, url, captured_at, data) VALUES (?, ?, ?, ?) ' +
        'ON DUPLICATE KEY UPDATE url = VALUES(url), captured_at = VALUES(captured_at), data = VALUES(data)',
      [row.siteId, row.url, dbDate(this.db, row.capturedAt), row.data],
    );
    // MySQL counts an upsert that updated a row as 2 affected rows (0 when nothing changed).
    return result.affectedRows === 1 ? 'added' : 'refreshed';
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
