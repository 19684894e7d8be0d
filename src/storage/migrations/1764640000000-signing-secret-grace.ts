import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * accounts.previous_signing_secret and previous_signing_secret_until: when a signing secret is
 * replaced, the one it replaces keeps signing callbacks (as a second Standard Webhooks signature)
 * until the grace period ends, so receivers can switch to the new secret without dropping
 * deliveries. Sealed like signing_secret when SECRETS_KEY is set.
 */
export class SigningSecretGrace1764640000000 implements MigrationInterface {
  name = 'SigningSecretGrace1764640000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('accounts', [
      new TableColumn({ name: 'previous_signing_secret', type: 'varchar', length: '255', isNullable: true }),
      new TableColumn({
        name: 'previous_signing_secret_until',
        type: 'datetime',
        precision: 3,
        isNullable: true,
      }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('accounts', 'previous_signing_secret_until');
    await q.dropColumn('accounts', 'previous_signing_secret');
  }
}
