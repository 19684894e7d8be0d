import { Entity, PrimaryColumn } from 'typeorm';

/** One keyword of a site (the enrichment's keywords set, lowercase a-z0-9): the lead-list keyword filter reads these rows. */
@Entity('site_keywords')
export class SiteKeywordEntity {
  @PrimaryColumn({ type: 'varchar', length: 60 })
  keyword: string;

  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;
}
