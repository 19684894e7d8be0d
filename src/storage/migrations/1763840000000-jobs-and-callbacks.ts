import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** The durable job table and the callback delivery log. Runs on SQLite and MySQL/MariaDB. */
export class JobsAndCallbacks1763840000000 implements MigrationInterface {
  name = 'JobsAndCallbacks1763840000000';

  async up(q: QueryRunner): Promise<void> {
    // A callback body can be a whole result; TEXT caps at 64 KB on MySQL, SQLite has no such cap.
    const largeText = q.connection.options.type === 'better-sqlite3' ? 'text' : 'mediumtext';
    await q.createTable(
      new Table({
        name: 'jobs',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'kind', type: 'varchar', length: '100' },
          { name: 'payload', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'int', default: 0 },
          { name: 'max_attempts', type: 'int' },
          { name: 'run_at', type: 'datetime', precision: 3 },
          { name: 'lease_owner', type: 'varchar', length: '100', isNullable: true },
          { name: 'lease_expires_at', type: 'datetime', precision: 3, isNullable: true },
          { name: 'last_error', type: 'text', isNullable: true },
          { name: 'unique_key', type: 'varchar', length: '200', isNullable: true },
          { name: 'created_at', type: 'datetime', precision: 3 },
          { name: 'updated_at', type: 'datetime', precision: 3 },
          { name: 'finished_at', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          // Claiming: the next queued jobs whose time has come, oldest first.
          new TableIndex({ name: 'idx_jobs_claim', columnNames: ['status', 'run_at'] }),
          // Recovery: running jobs whose lease has expired.
          new TableIndex({ name: 'idx_jobs_lease', columnNames: ['status', 'lease_expires_at'] }),
          // NULLs never collide, so only keyed enqueues are deduplicated.
          new TableIndex({ name: 'uq_jobs_unique_key', columnNames: ['unique_key'], isUnique: true }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'callback_deliveries',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'account_id', type: 'int' },
          { name: 'url', type: 'varchar', length: '2048' },
          { name: 'event', type: 'varchar', length: '100' },
          { name: 'body', type: largeText },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'attempts', type: 'int', default: 0 },
          { name: 'last_status_code', type: 'int', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '1000', isNullable: true },
          { name: 'created_at', type: 'datetime', precision: 3 },
          { name: 'delivered_at', type: 'datetime', precision: 3, isNullable: true },
          { name: 'next_attempt_at', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({
            name: 'idx_callback_deliveries_log',
            columnNames: ['account_id', 'created_at', 'id'],
          }),
        ],
        foreignKeys: [
          { columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'] },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('callback_deliveries');
    await q.dropTable('jobs');
  }
}
