import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Fingerprint packs loaded live (issue 31):
 * - fingerprint_packs: one row per pack content ever loaded (a name loaded again with other content is
 *   a new row, so an earlier set can be activated again). The files are stored gzipped, so a process
 *   on another machine loads the pack from the database alone, and the built-in pack (several MB of
 *   JSON) fits well inside MariaDB's default max_allowed_packet.
 * - fingerprint_sets: every active set ever used, its id (`fp-` and 12 hex digits) mapped to its
 *   components in order, so a version recorded on an observation can be explained later.
 * - fingerprint_activations: the log of activations; the newest row names the active set, and a
 *   process learns of a switch with one read of the primary key.
 */
export class FingerprintPacks1764500000000 implements MigrationInterface {
  name = 'FingerprintPacks1764500000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.createTable(
      new Table({
        name: 'fingerprint_packs',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'role', type: 'varchar', length: '10' },
          { name: 'version', type: 'varchar', length: '200' },
          { name: 'content_hash', type: 'varchar', length: '64' },
          { name: 'technologies', type: 'int' },
          { name: 'size_bytes', type: 'int' },
          { name: 'files', type: mysql ? 'longblob' : 'blob' },
          { name: 'loaded_at', type: 'datetime', precision: 3 },
          { name: 'loaded_by', type: 'varchar', length: '200' },
        ],
        indices: [
          new TableIndex({
            name: 'idx_fingerprint_packs_content',
            columnNames: ['name', 'role', 'content_hash'],
            isUnique: true,
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'fingerprint_sets',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          // The pack row ids in order (base first), as JSON.
          { name: 'components', type: 'text' },
          { name: 'created_at', type: 'datetime', precision: 3 },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'fingerprint_activations',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'set_id', type: 'varchar', length: '64' },
          { name: 'activated_at', type: 'datetime', precision: 3 },
          { name: 'activated_by', type: 'varchar', length: '200' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('fingerprint_activations');
    await q.dropTable('fingerprint_sets');
    await q.dropTable('fingerprint_packs');
  }
}
