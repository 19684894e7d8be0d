import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** Lead lists (POST /v2/lists): the list records and the websites each list holds, per technology. */
export class LeadLists1763950000000 implements MigrationInterface {
  name = 'LeadLists1763950000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    const time = (name: string, isNullable = false) => ({ name, type: 'datetime', precision: 3, isNullable });
    await q.createTable(
      new Table({
        name: 'lead_lists',
        columns: [
          { name: 'id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'account_id', type: 'int' },
          { name: 'status', type: 'varchar', length: '20' },
          { name: 'request', type: mysql ? 'mediumtext' : 'text' },
          { name: 'tech_rows', type: mysql ? 'mediumtext' : 'text', isNullable: true },
          { name: 'set_rows', type: 'text', isNullable: true },
          { name: 'websites', type: 'int', default: 0 },
          { name: 'total_credits', type: 'int', default: 0 },
          { name: 'error', type: 'varchar', length: '500', isNullable: true },
          time('created_at'),
          time('ready_at', true),
          time('completed_at', true),
          time('deleted_at', true),
        ],
        indices: [
          new TableIndex({ name: 'idx_lead_lists_account', columnNames: ['account_id', 'created_at'] }),
        ],
        foreignKeys: [
          {
            columnNames: ['account_id'],
            referencedTableName: 'accounts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'lead_list_sites',
        columns: [
          { name: 'list_id', type: 'varchar', length: '40', isPrimary: true },
          { name: 'slug', type: 'varchar', length: '120', isPrimary: true },
          { name: 'site_id', type: 'int', isPrimary: true },
        ],
        indices: [new TableIndex({ name: 'idx_lead_list_sites_site', columnNames: ['list_id', 'site_id'] })],
        foreignKeys: [
          {
            columnNames: ['list_id'],
            referencedTableName: 'lead_lists',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('lead_list_sites');
    await q.dropTable('lead_lists');
  }
}
