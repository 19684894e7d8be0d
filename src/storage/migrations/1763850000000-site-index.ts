import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** The site index: sites, their technologies, the monthly history, and observed host names. */
export class SiteIndex1763850000000 implements MigrationInterface {
  name = 'SiteIndex1763850000000';

  async up(q: QueryRunner): Promise<void> {
    const time = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });
    await q.createTable(
      new Table({
        name: 'sites',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'hostname', type: 'varchar', length: '253' },
          { name: 'domain', type: 'varchar', length: '253' },
          { name: 'tld', type: 'varchar', length: '64' },
          { name: 'is_subdomain', type: 'boolean', default: false },
          { name: 'language', type: 'varchar', length: '20', isNullable: true },
          { name: 'languages', type: 'text' },
          { name: 'country', type: 'varchar', length: '2', isNullable: true },
          { name: 'title', type: 'varchar', length: '300', isNullable: true },
          { name: 'hits', type: 'int', default: 0 },
          time('first_seen_at'),
          time('last_analyzed_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_sites_hostname', columnNames: ['hostname'], isUnique: true }),
          new TableIndex({ name: 'idx_sites_domain', columnNames: ['domain'] }),
          new TableIndex({ name: 'idx_sites_tld', columnNames: ['tld'] }),
          new TableIndex({ name: 'idx_sites_language', columnNames: ['language'] }),
          new TableIndex({ name: 'idx_sites_country', columnNames: ['country'] }),
          new TableIndex({ name: 'idx_sites_hits', columnNames: ['hits'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'site_technologies',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'site_id', type: 'int' },
          { name: 'slug', type: 'varchar', length: '120' },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'version', type: 'varchar', length: '60', default: "''" },
          { name: 'versions', type: 'text' },
          { name: 'confidence', type: 'int' },
          { name: 'root_path', type: 'boolean', default: false },
          time('first_seen_at'),
          time('confirmed_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_site_technologies', columnNames: ['site_id', 'slug'], isUnique: true }),
          new TableIndex({ name: 'idx_site_technologies_slug', columnNames: ['slug', 'confirmed_at'] }),
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
    await q.createTable(
      new Table({
        name: 'site_months',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          { name: 'month', type: 'varchar', length: '7', isPrimary: true },
          { name: 'languages', type: 'text' },
          { name: 'hits', type: 'int', default: 0 },
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
    await q.createTable(
      new Table({
        name: 'site_month_technologies',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          { name: 'month', type: 'varchar', length: '7', isPrimary: true },
          { name: 'slug', type: 'varchar', length: '120', isPrimary: true },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'categories', type: 'text' },
          { name: 'versions', type: 'text' },
          { name: 'hits', type: 'int', default: 0 },
          { name: 'confidence', type: 'int' },
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
    // Subdomain pages are walked in name order with a `name > cursor` condition: the order must be
    // byte order on both databases, so MySQL gets a binary collation (SQLite's default is binary).
    const binary = q.connection.options.type === 'mysql' ? { collation: 'utf8mb4_bin' } : {};
    await q.createTable(
      new Table({
        name: 'observed_hostnames',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'domain', type: 'varchar', length: '253', ...binary },
          { name: 'name', type: 'varchar', length: '253', ...binary },
          { name: 'source', type: 'varchar', length: '20' },
          { name: 'resolvable', type: 'boolean', isNullable: true },
          time('first_seen_at'),
          time('last_seen_at'),
        ],
        indices: [
          new TableIndex({ name: 'uq_observed_hostnames', columnNames: ['domain', 'name'], isUnique: true }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'observed_hostnames',
      'site_month_technologies',
      'site_months',
      'site_technologies',
      'sites',
    ]) {
      await q.dropTable(table);
    }
  }
}
