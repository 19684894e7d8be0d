import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * host_backoffs: hosts that answered 429/503, and until when (epoch ms) every worker leaves each
 * alone. Without REDIS_URL this table is how worker processes on one database share a Retry-After
 * one of them was told; rows past their time are deleted as workers write new ones.
 */
export class HostBackoffs1764600000000 implements MigrationInterface {
  name = 'HostBackoffs1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'host_backoffs',
        columns: [
          // host[:port] as a URL spells it (lowercase; at most 253 characters of name and a port).
          { name: 'host', type: 'varchar', length: '260', isPrimary: true },
          { name: 'until_ms', type: 'bigint' },
        ],
        indices: [{ name: 'idx_host_backoffs_until', columnNames: ['until_ms'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('host_backoffs');
  }
}
