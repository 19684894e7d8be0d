import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Index ranges for the retention sweep (RetentionService): finished rows by status and age. */
export class RetentionIndexes1763901000001 implements MigrationInterface {
  name = 'RetentionIndexes1763901000001';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'jobs',
      new TableIndex({ name: 'idx_jobs_finished', columnNames: ['status', 'finished_at'] }),
    );
    await q.createIndex(
      'callback_deliveries',
      new TableIndex({ name: 'idx_callback_deliveries_age', columnNames: ['status', 'created_at'] }),
    );
    await q.createIndex(
      'credit_ledger',
      new TableIndex({ name: 'idx_credit_ledger_kind_age', columnNames: ['kind', 'created_at'] }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('credit_ledger', 'idx_credit_ledger_kind_age');
    await q.dropIndex('callback_deliveries', 'idx_callback_deliveries_age');
    await q.dropIndex('jobs', 'idx_jobs_finished');
  }
}
