import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * page_validators: per page URL, the ETag / Last-Modified of its last full download and what its
 * analysis made of it (detection result, title, links), for conditional re-crawls. One row per URL,
 * deleted with the site (foreign key, ON DELETE CASCADE).
 */
export class PageValidators1764200000000 implements MigrationInterface {
  name = 'PageValidators1764200000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.createTable(
      new Table({
        name: 'page_validators',
        columns: [
          { name: 'url_hash', type: 'varchar', length: '64', isPrimary: true },
          { name: 'site_id', type: 'int' },
          { name: 'etag', type: 'varchar', length: '250', isNullable: true },
          { name: 'last_modified', type: 'varchar', length: '60', isNullable: true },
          // A page's links and evidence can pass MySQL TEXT's 64 KB.
          { name: 'data', type: mysql ? 'mediumtext' : 'text' },
          { name: 'updated_at', type: 'datetime', precision: 3 },
        ],
        indices: [
          new TableIndex({ name: 'idx_page_validators_site', columnNames: ['site_id', 'updated_at'] }),
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
    await q.dropTable('page_validators');
  }
}
