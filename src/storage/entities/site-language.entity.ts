import { Entity, PrimaryColumn } from 'typeorm';

/** One language a site declares or is written in: the lead-list language filter reads these rows. */
@Entity('site_languages')
export class SiteLanguageEntity {
  @PrimaryColumn({ type: 'varchar', length: 20 })
  language: string;

  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;
}
