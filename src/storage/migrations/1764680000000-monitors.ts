import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Monitors (POST /v2/monitors):
 * - monitors: an account's filter (technologies, categories, kinds as JSON lists), where its
 *   batches of matching changes are called back, and how often its watched sites are re-analysed.
 * - monitor_domains: the sites a monitor watches, one row each: the index key (hostname), the
 *   registrable domain when the watch covers its subdomains too, and when the freshness scheduler
 *   next looks at the site (next_crawl_at).
 */
export class Monitors1764680000000 implements MigrationInterface {
  name = 'Monitors1764680000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'monitors',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'account_id', type: 'int' },
          { name: 'callback_url', type: 'varchar', length: '2048' },
          // JSON lists of slugs (up to 100 technologies and 20 categories of 120 characters).
          { name: 'technologies', type: 'text' },
          { name: 'categories', type: 'text' },
          { name: 'kinds', type: 'varchar', length: '40' },
          { name: 'has_domains', type: 'boolean' },
          { name: 'recrawl_days', type: 'int' },
          { name: 'created_at', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [
          {
            columnNames: ['account_id'],
            referencedTableName: 'accounts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          new TableIndex({ name: 'idx_monitors_account', columnNames: ['account_id', 'id'] }),
          // The monitors without sites, read for every analysis that records a change.
          new TableIndex({ name: 'idx_monitors_has_domains', columnNames: ['has_domains'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'monitor_domains',
        columns: [
          { name: 'monitor_id', type: 'int', isPrimary: true },
          { name: 'hostname', type: 'varchar', length: '260', isPrimary: true },
          { name: 'domain', type: 'varchar', length: '260', isNullable: true },
          { name: 'account_id', type: 'int' },
          { name: 'recrawl_days', type: 'int' },
          { name: 'next_crawl_at', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [
          {
            columnNames: ['monitor_id'],
            referencedTableName: 'monitors',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          new TableIndex({ name: 'idx_monitor_domains_hostname', columnNames: ['hostname'] }),
          new TableIndex({ name: 'idx_monitor_domains_domain', columnNames: ['domain'] }),
          new TableIndex({ name: 'idx_monitor_domains_next', columnNames: ['next_crawl_at'] }),
          new TableIndex({ name: 'idx_monitor_domains_account', columnNames: ['account_id', 'hostname'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('monitor_domains');
    await q.dropTable('monitors');
  }
}
