import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Room for a signing secret sealed with AES-256-GCM (`enc:v1:` + key id, IV, tag and ciphertext,
 * about 140 characters) on MySQL/MariaDB. SQLite does not enforce VARCHAR lengths, and rebuilding
 * the referenced accounts table there would gain nothing, so SQLite is left as it is.
 */
export class SealedSigningSecrets1763901000000 implements MigrationInterface {
  name = 'SealedSigningSecrets1763901000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'better-sqlite3') return;
    await q.query('ALTER TABLE accounts MODIFY signing_secret VARCHAR(255) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'better-sqlite3') return;
    await q.query('ALTER TABLE accounts MODIFY signing_secret VARCHAR(128) NULL');
  }
}
