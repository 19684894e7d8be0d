import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A technology on a site in one month: versions seen and on how many recorded page views. */
@Entity('site_month_technologies')
export class SiteMonthTechnologyEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  @PrimaryColumn({ type: 'varchar', length: 7 })
  month: string;

  @PrimaryColumn({ type: 'varchar', length: 120 })
  slug: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Category names, JSON array. */
  @Column({ type: 'text' })
  categories: string;

  /** Versions seen that month, JSON array. */
  @Column({ type: 'text' })
  versions: string;

  /** Recorded page views of the site that month on which the technology was detected. */
  @Column({ type: 'int', default: 0 })
  hits: number;

  /** Highest confidence seen that month (denoise filters on it). */
  @Column({ type: 'int' })
  confidence: number;

  /** The latest fingerprint version that detected it that month; '' for months stored before versions were. */
  @Column({ name: 'fingerprints_version', type: 'varchar', length: 64, default: '' })
  fingerprintsVersion: string;

  /** Every distinct version that detected it that month, oldest first (JSON array; see site-index.service.ts). */
  @Column({ name: 'fingerprints_versions', type: 'varchar', length: 300, default: '[]' })
  fingerprintsVersions: string;
}
