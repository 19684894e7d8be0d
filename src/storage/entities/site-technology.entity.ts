import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/** The current state of one technology on one site: first seen, last confirmed, version. */
@Entity('site_technologies')
@Index('uq_site_technologies', ['siteId', 'slug'], { unique: true })
// Lead lists: candidates per technology, confirmed in a window, filtered by version, covering the site id.
@Index('idx_site_technologies_list', ['slug', 'confirmedAt', 'versionKey', 'siteId'])
// Exposure: the live sites running one version of a technology, in site id order (migration 1764730000000).
@Index('idx_site_technologies_live_version', ['slug', 'live', 'version', 'siteId'])
export class SiteTechnologyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'site_id', type: 'int' })
  siteId: number;

  @Column({ type: 'varchar', length: 120 })
  slug: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Best known version, '' when unknown. */
  @Column({ type: 'varchar', length: 60, default: '' })
  version: string;

  /** Sortable key of `version` (see services/version-key.ts); '' when it has no number. */
  @Column({ name: 'version_key', type: 'varchar', length: 80, default: '' })
  versionKey: string;

  /** Every version seen, JSON array. */
  @Column({ type: 'text' })
  versions: string;

  @Column({ type: 'int' })
  confidence: number;

  /** Seen on the site's root path (its home page) at least once. */
  @Column({ name: 'root_path', type: 'boolean', default: false })
  rootPath: boolean;

  /**
   * The fingerprint version of the analysis that last confirmed it; '' for rows last confirmed
   * before versions were recorded.
   */
  @Column({ name: 'fingerprints_version', type: 'varchar', length: 64, default: '' })
  fingerprintsVersion: string;

  @TimeColumn({ name: 'first_seen_at' })
  firstSeenAt: Date;

  /** Last seen: the latest analysis that found it. */
  @TimeColumn({ name: 'confirmed_at' })
  confirmedAt: Date;

  /**
   * Whether it is on the site now: false once an analysis read every page where it had been
   * evidenced without finding it (see docs/api/changes.md, "No false removals").
   */
  @Column({ type: 'boolean', default: true })
  live: boolean;

  /** When it was last removed (null while it was never removed). */
  @TimeColumn({ name: 'removed_at', nullable: true })
  removedAt: Date | null;

  /**
   * Paths of the pages whose latest reading found it (JSON array, bounded); '*' stands for "some
   * page of a crawl" where the page is not known (rows older than this column).
   */
  @Column({ name: 'evidence_paths', type: 'varchar', length: 1000, default: '[]' })
  evidencePaths: string;
}
