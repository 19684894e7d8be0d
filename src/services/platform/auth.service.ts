import { In, Not, IsNull } from 'typeorm';
import { Database } from '../../storage/database';
import type { RawSql } from '../../storage/raw-sql';
import { ApiKeyEntity } from '../../storage/entities';
import { AuthError } from '../../errors';
import { constantTimeEquals, hashApiKey } from './api-key-codec';
import type { Principal } from './caller';

/** Longest key we even look at: real keys are 47 characters; anything huge is refused unhashed. */
const MAX_KEY_LENGTH = 256;
/** Keys remembered at most; past it the cache starts over (a key costs one indexed read to come back). */
const MAX_CACHED_KEYS = 100_000;

interface CachedKey {
  principal: Principal;
  until: number;
}

interface KeyRow {
  id: number;
  key_hash: string;
  revoked_at: unknown;
  account_id: number;
  plan: string;
  is_demo: number | boolean;
}

/**
 * Turns an x-api-key value into a Principal, or throws AuthError naming the problem.
 * Keys are looked up by their SHA-256 hash (the plaintext is never stored), and the stored hash is
 * compared again in constant time so that no timing difference tells how much of a key was right.
 *
 * Valid keys are remembered for KEY_CACHE_SECONDS (by hash, never the plaintext), which takes two
 * reads off every request. What keeps a cached key from outliving its revocation:
 * - in this process, `forgetKey`/`forgetAccount` drop it at once (revocation and plan changes are
 *   announced on the event bus, which spans processes when REDIS_URL is set);
 * - in every process, each metered request's settlement checks its key in the same transaction
 *   that counts and charges it (src/services/usage-meter.ts): a revoked key is refused there and
 *   forgotten;
 * - anything else a key can call unmetered (its account's own data, subscriptions) sees a
 *   revocation made by another process without REDIS_URL within KEY_CACHE_SECONDS.
 */
export class AuthService {
  private readonly cache = new Map<string, CachedKey>();

  constructor(
    private readonly db: Database,
    private readonly sql: RawSql,
    private readonly demo: { key: string | undefined; accountId: number | null },
    private readonly cacheSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(rawKey: string | undefined): Promise<Principal> {
    const key = rawKey?.trim();
    if (!key) throw new AuthError('Missing API key: send it in the x-api-key header');
    if (key.length > MAX_KEY_LENGTH) throw new AuthError('Invalid API key');
    if (this.demo.key && this.demo.accountId !== null && constantTimeEquals(key, this.demo.key)) {
      return { accountId: this.demo.accountId, keyId: 'demo', plan: 'demo', isDemo: true };
    }
    const hash = hashApiKey(key);
    const cached = this.cache.get(hash);
    if (cached && cached.until > this.now()) return cached.principal;
    const [row] = await this.sql.all<KeyRow>(
      'SELECT k.id, k.key_hash, k.revoked_at, a.id AS account_id, a.plan, a.is_demo ' +
        'FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?',
      [hash],
    );
    if (!row || !constantTimeEquals(row.key_hash, hash)) throw new AuthError('Invalid API key');
    if (row.revoked_at) {
      this.cache.delete(hash);
      throw new AuthError('This API key has been revoked');
    }
    const principal: Principal = {
      accountId: Number(row.account_id),
      keyId: Number(row.id),
      plan: row.plan,
      isDemo: Boolean(row.is_demo),
    };
    if (this.cacheSeconds > 0) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
      this.cache.set(hash, { principal, until: this.now() + this.cacheSeconds * 1000 });
    }
    return principal;
  }

  /** Drops a key from the cache (it was revoked): its next request reads it again, and is refused. */
  forgetKey(keyId: number): void {
    for (const [hash, entry] of this.cache) if (entry.principal.keyId === keyId) this.cache.delete(hash);
  }

  /** Drops an account's keys from the cache (its plan changed). */
  forgetAccount(accountId: number): void {
    for (const [hash, entry] of this.cache)
      if (entry.principal.accountId === accountId) this.cache.delete(hash);
  }

  /** Of these key ids, the ones revoked by now (open WebSocket sessions of them must end). */
  async revokedAmong(keyIds: readonly number[]): Promise<number[]> {
    if (keyIds.length === 0) return [];
    const rows = await this.db.manager.find(ApiKeyEntity, {
      select: { id: true },
      where: { id: In([...keyIds]), revokedAt: Not(IsNull()) },
    });
    return rows.map((row) => row.id);
  }
}
