import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A version of a technology on a site now: one the latest readings of the site's pages found.
 * A site often runs two versions of one library at once (a theme's jQuery and a plugin's), so a
 * live technology has one row per version on the site, or one row with version '' when none is
 * known; a technology no longer on the site has none. Exposure, the SBOM, the reverse query and the
 * lists' vulnerabilities filter judge these rows (see technology-live-versions.ts).
 */
@Entity('site_technology_live_versions')
// The reverse query: the sites running one version of a technology, in site id order.
@Index('idx_site_technology_live_versions_version', ['slug', 'version', 'siteId'])
export class SiteTechnologyLiveVersionEntity {
  @PrimaryColumn({ name: 'site_id', type: 'int' })
  siteId: number;

  @PrimaryColumn({ type: 'varchar', length: 120 })
  slug: string;

  /** '' only on the one row of a live technology without a known version. */
  @PrimaryColumn({ type: 'varchar', length: 60 })
  version: string;

  /** Paths of the pages whose latest reading found this version (JSON array, bounded). */
  @Column({ name: 'evidence_paths', type: 'varchar', length: 1000, default: '[]' })
  evidencePaths: string;
}
