import type { RawSql } from './raw-sql';

/** A revocation as key_revocations records it (every revocation writes one, with the key's row). */
export interface RevocationRow {
  id: number;
  keyId: number;
  accountId: number;
}

/** Reads of key_revocations, the log of revocations every process catches up on. */
export class KeyRevocationRepository {
  constructor(private readonly sql: RawSql) {}

  /** The newest revocation's id (0 when there is none). */
  async latestId(): Promise<number> {
    const [row] = await this.sql.all<{ id: number | null }>('SELECT MAX(id) AS id FROM key_revocations');
    return Number(row?.id ?? 0);
  }

  /** The revocations after `id`, oldest first. */
  async after(id: number): Promise<RevocationRow[]> {
    const rows = await this.sql.all<{ id: number; key_id: number; account_id: number }>(
      'SELECT id, key_id, account_id FROM key_revocations WHERE id > ? ORDER BY id',
      [id],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      keyId: Number(row.key_id),
      accountId: Number(row.account_id),
    }));
  }
}
