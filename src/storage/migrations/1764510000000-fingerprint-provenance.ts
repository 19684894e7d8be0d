import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * Provenance of stored observations and page samples for re-evaluating rule changes (issue 31 §2):
 *
 * - site_technologies.fingerprints_version: the fingerprint version of the analysis that last
 *   confirmed the technology on the site.
 * - site_month_technologies.fingerprints_version: the latest version that saw it that month, and
 *   fingerprints_versions: every distinct version that saw it that month (JSON array, oldest first,
 *   the most recent few kept), so a month whose hits come from two rule sets says so.
 *   Rows stored before this migration keep '' (and '[]'): their version was not recorded.
 * - page_samples: one sample per site (its front page as the engine saw it, gzipped JSON), deleted
 *   with the site (foreign key, ON DELETE CASCADE).
 */
export class FingerprintProvenance1764510000000 implements MigrationInterface {
  name = 'FingerprintProvenance1764510000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    const version = () =>
      new TableColumn({ name: 'fingerprints_version', type: 'varchar', length: '64', default: "''" });
    await q.addColumn('site_technologies', version());
    await q.addColumn('site_month_technologies', version());
    await q.addColumn(
      'site_month_technologies',
      new TableColumn({ name: 'fingerprints_versions', type: 'varchar', length: '300', default: "'[]'" }),
    );
    await q.createTable(
      new Table({
        name: 'page_samples',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          { name: 'url', type: 'text' },
          { name: 'captured_at', type: 'datetime', precision: 3 },
          // A bounded page gzipped can pass MySQL BLOB's 64 KB.
          { name: 'data', type: mysql ? 'mediumblob' : 'blob' },
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
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('page_samples');
    await q.dropColumn('site_month_technologies', 'fingerprints_versions');
    await q.dropColumn('site_month_technologies', 'fingerprints_version');
    await q.dropColumn('site_technologies', 'fingerprints_version');
  }
}
