import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * site_technology_live_versions (issue 33, concurrent versions): the versions of each live
 * technology a site runs now, one row each (a theme's jQuery 1.12.4 and a plugin's 3.6.0), with
 * the paths of the pages whose latest reading found it; one row with version '' for a live
 * technology without a known version. Exposure, the SBOM, the reverse query and the lists'
 * vulnerabilities filter read it instead of site_technologies.version, the single best version.
 *
 * Backfilled from site_technologies: each live technology's best version (or ''), with the
 * technology's own evidence (the index knew no more: `versions` is every version ever seen, not
 * what runs now). Rows go with their site (ON DELETE CASCADE).
 */
export class TechnologyLiveVersions1764760000000 implements MigrationInterface {
  name = 'TechnologyLiveVersions1764760000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'site_technology_live_versions',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          { name: 'slug', type: 'varchar', length: '120', isPrimary: true },
          { name: 'version', type: 'varchar', length: '60', isPrimary: true },
          { name: 'evidence_paths', type: 'varchar', length: '1000', default: "'[]'" },
        ],
        foreignKeys: [
          {
            columnNames: ['site_id'],
            referencedTableName: 'sites',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await q.query(
      'INSERT INTO site_technology_live_versions (site_id, slug, version, evidence_paths) ' +
        'SELECT site_id, slug, version, evidence_paths FROM site_technologies WHERE live = 1',
    );
    await q.createIndex(
      'site_technology_live_versions',
      new TableIndex({
        name: 'idx_site_technology_live_versions_version',
        columnNames: ['slug', 'version', 'site_id'],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('site_technology_live_versions');
  }
}
