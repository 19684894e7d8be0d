import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * What a change did to a technology on a site; `vulnerability`: newly imported data makes the
 * technology's detected version on the site affected.
 */
export type TechnologyChangeKind = 'added' | 'removed' | 'version' | 'vulnerability';

/**
 * The change log: one row per technology added to, removed from, or changing version on a site,
 * written in the transaction that stores the analysis. The id only grows, so "changes after id X"
 * is a reader's (and a monitor's) resumable position.
 */
@Entity('technology_changes')
// The feed by site and by technology reads an index range from the cursor on.
@Index('idx_technology_changes_site', ['siteId', 'id'])
@Index('idx_technology_changes_slug', ['slug', 'id'])
// Retention removes by age.
@Index('idx_technology_changes_at', ['at'])
export class TechnologyChangeEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'site_id', type: 'int' })
  siteId: number;

  @Column({ type: 'varchar', length: 120 })
  slug: string;

  @Column({ type: 'varchar', length: 16 })
  kind: TechnologyChangeKind;

  /** The version before the change ('' when none was known). */
  @Column({ name: 'from_version', type: 'varchar', length: 60, default: '' })
  fromVersion: string;

  /** The version after it ('' when none is known, or when removed). */
  @Column({ name: 'to_version', type: 'varchar', length: 60, default: '' })
  toVersion: string;

  /** The fingerprint version of the analysis that saw the change ('' for backfilled rows). */
  @Column({ name: 'fingerprints_version', type: 'varchar', length: 64, default: '' })
  fingerprintsVersion: string;

  @TimeColumn()
  at: Date;

  /** A `vulnerability` change's vulnerability as JSON (id, aliases, severity, score, match); else null. */
  @Column({ type: 'text', nullable: true })
  vulnerability: string | null;
}
