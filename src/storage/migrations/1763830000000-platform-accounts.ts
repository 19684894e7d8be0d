import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/** Accounts, hashed API keys, the credit ledger and quota counters. Written once, runs on SQLite and MySQL. */
export class PlatformAccounts1763830000000 implements MigrationInterface {
  name = 'PlatformAccounts1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'accounts',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'email', type: 'varchar', length: '320' },
          { name: 'plan', type: 'varchar', length: '20' },
          { name: 'credits', type: 'int', default: 0 },
          { name: 'signing_secret', type: 'varchar', length: '128', isNullable: true },
          { name: 'is_demo', type: 'boolean', default: false },
          { name: 'created_at', type: 'datetime', precision: 3 },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'account_id', type: 'int' },
          { name: 'key_hash', type: 'varchar', length: '64' },
          { name: 'key_prefix', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'datetime', precision: 3 },
          { name: 'revoked_at', type: 'datetime', precision: 3, isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'uq_api_keys_hash', columnNames: ['key_hash'], isUnique: true }),
          new TableIndex({ name: 'idx_api_keys_account', columnNames: ['account_id'] }),
        ],
        foreignKeys: [
          { columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'credit_ledger',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'account_id', type: 'int' },
          { name: 'delta', type: 'int' },
          { name: 'balance_after', type: 'int' },
          { name: 'kind', type: 'varchar', length: '20' },
          { name: 'reason', type: 'varchar', length: '200' },
          { name: 'request_id', type: 'varchar', length: '64', isNullable: true },
          { name: 'created_at', type: 'datetime', precision: 3 },
        ],
        indices: [new TableIndex({ name: 'idx_credit_ledger_account', columnNames: ['account_id', 'id'] })],
        foreignKeys: [
          { columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'usage_counters',
        columns: [
          { name: 'account_id', type: 'int', isPrimary: true },
          { name: 'period', type: 'varchar', length: '16', isPrimary: true },
          { name: 'count', type: 'int', default: 0 },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['usage_counters', 'credit_ledger', 'api_keys', 'accounts']) await q.dropTable(table);
  }
}
