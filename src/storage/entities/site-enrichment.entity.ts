import { Column, Entity, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** The enriched record of a site (the field sets of /v2/lookup/, JSON), as its last analysis found it. */
@Entity('site_enrichments')
export class SiteEnrichmentEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  /** SiteEnrichment without the events set (those come from the site row), JSON. */
  @Column({ type: 'text' })
  data: string;

  /** Pages the record was read from: a one-page analysis does not replace a recent crawl's record. */
  @Column({ type: 'int', default: 1 })
  pages: number;

  @TimeColumn({ name: 'updated_at' })
  updatedAt: Date;
}
