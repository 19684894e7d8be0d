import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * sites.scheme: the scheme the site last answered on (http or https), so a list's url column says
 * how the site is served. Sites are keyed by host (and a non-default port) without the scheme;
 * rows analysed before this column have none, and their url stays https as before.
 */
export class SiteScheme1764400000000 implements MigrationInterface {
  name = 'SiteScheme1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'sites',
      new TableColumn({ name: 'scheme', type: 'varchar', length: '5', isNullable: true }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('sites', 'scheme');
  }
}
