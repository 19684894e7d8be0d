import { In, LessThan } from 'typeorm';
import { Database } from './database';
import { PageValidatorEntity } from './entities';

/** The validators of one page URL and what its analysis left (JSON). */
export type PageValidatorRow = Pick<PageValidatorEntity, 'etag' | 'lastModified' | 'data'>;

/** page_validators: one row per page URL (by the hash of the URL asked for), deleted with its site. */
export class PageValidatorRepository {
  constructor(private readonly db: Database) {}

  recall(urlHash: string): Promise<PageValidatorRow | null> {
    return this.db.manager.findOne(PageValidatorEntity, {
      where: { urlHash },
      select: { etag: true, lastModified: true, data: true },
    });
  }

  /**
   * Stores (or refreshes) pages of one site, in url-hash order, then removes the site's pages not
   * stored since `forgetBefore` and those named in `forget`; in one transaction.
   */
  async remember(
    siteId: number,
    rows: Partial<PageValidatorEntity>[],
    forgetBefore: Date,
    forget: string[] = [],
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      if (forget.length) await m.delete(PageValidatorEntity, { siteId, urlHash: In(forget) });
      if (rows.length === 0) return;
      await m
        .createQueryBuilder()
        .insert()
        .into(PageValidatorEntity)
        .values([...rows].sort((a, b) => (a.urlHash! < b.urlHash! ? -1 : 1)))
        .orUpdate(['site_id', 'etag', 'last_modified', 'data', 'updated_at'], ['url_hash'])
        .updateEntity(false)
        .execute();
      await m.delete(PageValidatorEntity, { siteId, updatedAt: LessThan(forgetBefore) });
    });
  }
}
