import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * credit_ledger.idempotency_key: a movement that must happen at most once (the refund of a failed
 * job) carries a key, and a unique index makes a second one impossible, also when two runs of the
 * job race. NULL for every other movement (both dialects allow many NULLs in a unique index).
 */
export class LedgerIdempotencyKey1763903000000 implements MigrationInterface {
  name = 'LedgerIdempotencyKey1763903000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn(
      'credit_ledger',
      new TableColumn({ name: 'idempotency_key', type: 'varchar', length: '100', isNullable: true }),
    );
    await q.createIndex(
      'credit_ledger',
      new TableIndex({
        name: 'uq_credit_ledger_idempotency_key',
        columnNames: ['idempotency_key'],
        isUnique: true,
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('credit_ledger', 'uq_credit_ledger_idempotency_key');
    await q.dropColumn('credit_ledger', 'idempotency_key');
  }
}
