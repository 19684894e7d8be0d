import { EntityManager } from 'typeorm';
import { Database } from './database';
import { AccountEntity } from './entities';

/** The columns of `accounts` that hold a callback signing secret (plaintext, or sealed under SECRETS_KEY). */
export const SECRET_COLUMNS = ['signing_secret', 'previous_signing_secret'] as const;
export type SecretColumn = (typeof SECRET_COLUMNS)[number];

/** An account's stored signing secrets: the current one and the one it replaced (in its grace period). */
export interface StoredSecretRow {
  id: number;
  signing_secret: string | null;
  previous_signing_secret: string | null;
}

const PROPERTY: Record<SecretColumn, 'signingSecret' | 'previousSigningSecret'> = {
  signing_secret: 'signingSecret',
  previous_signing_secret: 'previousSigningSecret',
};

/** The accounts' stored signing secrets, read and replaced compare-and-set. */
export class SecretRepository {
  constructor(private readonly db: Database) {}

  /** Every account with a signing secret (current or previous), by id. */
  signingSecrets(): Promise<StoredSecretRow[]> {
    return this.db.query<StoredSecretRow[]>(
      'SELECT id, signing_secret, previous_signing_secret FROM accounts ' +
        'WHERE signing_secret IS NOT NULL OR previous_signing_secret IS NOT NULL ORDER BY id',
    );
  }

  /** Replaces one account's secrets if they are still `row`'s, in a transaction of its own; rows changed. */
  async replaceSigningSecret(row: StoredSecretRow, values: Omit<StoredSecretRow, 'id'>): Promise<number> {
    return this.db.transaction((m) => this.compareAndSet(m, row, values));
  }

  /** Replaces every given row's secrets that are still what was read, all in one transaction. */
  async replaceSigningSecrets(
    replacements: readonly { row: StoredSecretRow; values: Omit<StoredSecretRow, 'id'> }[],
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const { row, values } of replacements) await this.compareAndSet(m, row, values);
    });
  }

  private async compareAndSet(
    m: EntityManager,
    row: StoredSecretRow,
    values: Omit<StoredSecretRow, 'id'>,
  ): Promise<number> {
    const update = m
      .createQueryBuilder()
      .update(AccountEntity)
      .set({ signingSecret: values.signing_secret, previousSigningSecret: values.previous_signing_secret })
      .where('id = :id', { id: row.id });
    for (const column of SECRET_COLUMNS) {
      const old = row[column];
      if (old === null) update.andWhere(`${column} IS NULL`);
      else update.andWhere(`${column} = :${PROPERTY[column]}`, { [PROPERTY[column]]: old });
    }
    return (await update.execute()).affected ?? 0;
  }
}
