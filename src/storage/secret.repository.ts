import { Database } from './database';
import { AccountEntity } from './entities';

/** An account's stored callback signing secret (plaintext, or sealed under SECRETS_KEY). */
export interface StoredSecretRow {
  id: number;
  signing_secret: string;
}

/** The accounts' stored signing secrets, read and replaced compare-and-set. */
export class SecretRepository {
  constructor(private readonly db: Database) {}

  /** Every account with a signing secret, by id. */
  signingSecrets(): Promise<StoredSecretRow[]> {
    return this.db.query<StoredSecretRow[]>(
      'SELECT id, signing_secret FROM accounts WHERE signing_secret IS NOT NULL ORDER BY id',
    );
  }

  /** Replaces one account's secret if it is still `row`'s, in a transaction of its own; rows changed. */
  async replaceSigningSecret(row: StoredSecretRow, value: string): Promise<number> {
    return this.db.transaction(async (m) => {
      const result = await m
        .createQueryBuilder()
        .update(AccountEntity)
        .set({ signingSecret: value })
        .where('id = :id AND signing_secret = :old', { id: row.id, old: row.signing_secret })
        .execute();
      return result.affected ?? 0;
    });
  }

  /** Replaces every given secret that is still what was read, all in one transaction. */
  async replaceSigningSecrets(
    replacements: readonly { row: StoredSecretRow; value: string }[],
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const { row, value } of replacements) {
        await m.query('UPDATE accounts SET signing_secret = ? WHERE id = ? AND signing_secret = ?', [
          value,
          row.id,
          row.signing_secret,
        ]);
      }
    });
  }
}
