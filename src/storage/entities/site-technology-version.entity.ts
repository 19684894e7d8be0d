import { Entity, PrimaryColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** One version of a technology on a site: when an analysis first and last reported it. */
@Entity('site_technology_versions')
export class SiteTechnologyVersionEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  @PrimaryColumn({ type: 'varchar', length: 120 })
  slug: string;

  @PrimaryColumn({ type: 'varchar', length: 60 })
  version: string;

  @TimeColumn({ name: 'first_seen_at' })
  firstSeenAt: Date;

  @TimeColumn({ name: 'last_seen_at' })
  lastSeenAt: Date;
}
