import { In, IsNull, Not } from 'typeorm';
import type { Database } from './database';
import { ApiKeyEntity } from './entities';
import type { RawSql } from './raw-sql';

/** A key as authentication reads it: the key and its account, in one indexed read. */
export interface StoredKey {
  id: number;
  keyHash: string;
  revoked: boolean;
  accountId: number;
  plan: string;
  isDemo: boolean;
}

/** Reads of api_keys for authentication (a prepared statement: every request that misses the key cache runs it). */
export class ApiKeyRepository {
  constructor(
    private readonly db: Database,
    private readonly sql: RawSql,
  ) {}

  /** The key with this SHA-256 hash, with its account's plan, or null. */
  async byHash(hash: string): Promise<StoredKey | null> {
    const [row] = await this.sql.all<{
      id: number;
      key_hash: string;
      revoked_at: unknown;
      account_id: number;
      plan: string;
      is_demo: number | boolean;
    }>(
      'SELECT k.id, k.key_hash, k.revoked_at, a.id AS account_id, a.plan, a.is_demo ' +
        'FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?',
      [hash],
    );
    if (!row) return null;
    return {
      id: Number(row.id),
      keyHash: row.key_hash,
      revoked: Boolean(row.revoked_at),
      accountId: Number(row.account_id),
      plan: row.plan,
      isDemo: Boolean(row.is_demo),
    };
  }

  /** Of these key ids, the ones revoked by now. */
  async revokedAmong(keyIds: readonly number[]): Promise<number[]> {
    if (keyIds.length === 0) return [];
    const rows = await this.db.manager.find(ApiKeyEntity, {
      select: { id: true },
      where: { id: In([...keyIds]), revokedAt: Not(IsNull()) },
    });
    return rows.map((row) => row.id);
  }
}
