import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * The validators (ETag, Last-Modified) of a page's last full download and what its analysis made of
 * it, so a re-analysis asks conditionally and reuses the result on 304. One row per page URL (the
 * URL asked for), deleted with its site.
 */
@Entity('page_validators')
@Index('idx_page_validators_site', ['siteId', 'updatedAt'])
export class PageValidatorEntity {
  /** SHA-256 (hex) of the URL asked for. */
  @PrimaryColumn({ name: 'url_hash', type: 'varchar', length: 64 })
  urlHash: string;

  @Column({ name: 'site_id', type: 'int' })
  siteId: number;

  @Column({ type: 'varchar', length: 250, nullable: true })
  etag: string | null;

  @Column({ name: 'last_modified', type: 'varchar', length: 60, nullable: true })
  lastModified: string | null;

  /** The page's final URL, links, host names, languages and analysis (JSON). */
  @Column({ type: 'text' })
  data: string;

  @TimeColumn({ name: 'updated_at' })
  updatedAt: Date;
}
