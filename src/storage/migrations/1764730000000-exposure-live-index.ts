import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The reverse exposure query reads only live technologies: idx_site_technologies_slug_version
 * (slug, version, site_id) made it look up every candidate row to check `live`. Its replacement,
 * idx_site_technologies_live_version on (slug, live, version, site_id), answers "the live sites
 * running this version after a site id, in site id order" and "the live versions of a technology"
 * from the index alone.
 */
export class ExposureLiveIndex1764730000000 implements MigrationInterface {
  name = 'ExposureLiveIndex1764730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'site_technologies',
      new TableIndex({
        name: 'idx_site_technologies_live_version',
        columnNames: ['slug', 'live', 'version', 'site_id'],
      }),
    );
    await q.dropIndex('site_technologies', 'idx_site_technologies_slug_version');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'site_technologies',
      new TableIndex({
        name: 'idx_site_technologies_slug_version',
        columnNames: ['slug', 'version', 'site_id'],
      }),
    );
    await q.dropIndex('site_technologies', 'idx_site_technologies_live_version');
  }
}
