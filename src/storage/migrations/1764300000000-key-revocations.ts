import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * key_revocations: one row per revoked API key, written in the revocation's transaction. Its id
 * orders revocations: a process that remembers the highest id it has applied learns of newer ones
 * with one read of the primary key (`id > ?`, no row in the usual case), which is how a revocation
 * made by another process (the admin CLI) reaches a key cache without Redis.
 */
export class KeyRevocations1764300000000 implements MigrationInterface {
  name = 'KeyRevocations1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'key_revocations',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'key_id', type: 'int' },
          { name: 'account_id', type: 'int' },
          { name: 'revoked_at', type: 'datetime', precision: 3 },
        ],
      }),
    );
    // Keys revoked before this table existed are refused by their own row (revoked_at) when read.
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('key_revocations');
  }
}
