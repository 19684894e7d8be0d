import { ApiKeyRepository } from '../../storage/api-key.repository';
import type { Database } from '../../storage/database';
import type { RawSql } from '../../storage/raw-sql';
import { AuthError } from '../../errors';
import type { ApiKeyRevokedEvent } from '../../platform/event-bus';
import { constantTimeEquals, hashApiKey } from './api-key-codec';
import type { Principal } from './caller';
import { KeyRevocations } from './key-revocations';
import { KeyRevocationRepository } from '../../storage/key-revocation.repository';

/** Longest key we even look at: real keys are 47 characters; anything huge is refused unhashed. */
const MAX_KEY_LENGTH = 256;
/** Keys remembered at most; past it the cache starts over (a key costs one indexed read to come back). */
const MAX_CACHED_KEYS = 100_000;

interface CachedKey {
  principal: Principal;
  until: number;
}

/** Revoked key ids remembered at most (see `revokedKeys`); past it the oldest are let go. */
const MAX_REVOKED_KEYS = 100_000;

/**
 * Turns an x-api-key value into a Principal, or throws AuthError naming the problem.
 * Keys are looked up by their SHA-256 hash (the plaintext is never stored), and the stored hash is
 * compared again in constant time so that no timing difference tells how much of a key was right.
 *
 * Valid keys are remembered for KEY_CACHE_SECONDS (by hash, never the plaintext), which takes two
 * reads off every request. A key revoked anywhere (this process, another one, the admin CLI) is
 * refused by its next request all the same:
 * - a metered request's settlement checks its key in the transaction that counts and charges it,
 *   before the answer (src/services/platform/usage-meter.ts): the hot path costs nothing more;
 * - any other use of a cached key asks `refuseIfRevoked` first (the resolvers' guards, the
 *   WebSocket server's connections and events). With REDIS_URL (`noticed`) every revocation, the
 *   admin CLI's included, reaches every process as an apiKeyRevoked event before that, and this is
 *   one look-up in memory. Without it, `refuseIfRevoked` reads key_revocations past the last
 *   revocation this process applied (KeyRevocations.catchUp, a read started after the call): an
 *   in-process read of the primary key on SQLite, a round trip shared by the calls of the moment
 *   on MariaDB.
 * The WebSocket server's periodic re-check (WS_KEY_RECHECK_MS) reads key_revocations in either
 * mode, for a notice lost on the way (a subscriber reconnecting) or a CLI run without REDIS_URL.
 */
export class AuthService {
  private readonly cache = new Map<string, CachedKey>();
  private readonly revocations: KeyRevocations;
  private readonly keys: ApiKeyRepository;
  private readonly revokedListeners: ((revoked: ApiKeyRevokedEvent) => void)[] = [];
  /** Keys this process has been told (events) or has read (key_revocations) are revoked. */
  private readonly revokedKeys = new Set<number>();
  /** Bumped whenever keys leave the cache: a key read before a bump may be stale and is not kept. */
  private forgotten = 0;

  constructor(
    db: Database,
    sql: RawSql,
    private readonly demo: { key: string | undefined; accountId: number | null },
    private readonly cacheSeconds: number,
    /** True when every revocation is announced to this process (events through Redis). */
    private readonly noticed: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.keys = new ApiKeyRepository(db, sql);
    this.revocations = new KeyRevocations(
      new KeyRevocationRepository(sql),
      db.dialect === 'mysql',
      (revoked) => {
        for (const event of revoked) this.revoked(event);
      },
      (read) => db.exclusive(read),
    );
  }

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
    // Only a key read after the starting point of the revocations may be cached (see ready()).
    if (this.cacheSeconds > 0) await this.revocations.ready();
    const generation = this.forgotten;
    const row = await this.keys.byHash(hash);
    if (!row || !constantTimeEquals(row.keyHash, hash)) throw new AuthError('Invalid API key');
    if (row.revoked) {
      this.cache.delete(hash);
      throw new AuthError('This API key has been revoked');
    }
    const principal: Principal = {
      accountId: row.accountId,
      keyId: row.id,
      plan: row.plan,
      isDemo: row.isDemo,
    };
    // A revocation applied while the row was being read may be this key's (its row predates it).
    if (this.cacheSeconds > 0 && generation === this.forgotten) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
      this.cache.set(hash, { principal, until: this.now() + this.cacheSeconds * 1000 });
    }
    return principal;
  }

  /**
   * Throws AuthError when the principal's key was revoked before this call, wherever that was
   * (see the class comment): its revocations are applied first (the keys leave the cache, the
   * `onRevoked` listeners hear of them).
   */
  async refuseIfRevoked(principal: Principal): Promise<void> {
    if (principal.keyId === 'demo') return;
    await this.seeRevocations();
    if (this.revokedKeys.has(principal.keyId)) throw new AuthError('This API key has been revoked');
  }

  /** Reads of key_revocations this service has made (the metered hot path makes none). */
  get revocationReads(): number {
    return this.revocations.reads;
  }

  /** Applies every revocation committed before this call (nothing to read when they are noticed as events). */
  async seeRevocations(): Promise<void> {
    if (!this.noticed) await this.revocations.catchUp();
  }

  /** Reads key_revocations now, whatever the mode (the periodic re-check: a lost notice, a CLI without REDIS_URL). */
  catchUpRevocations(): Promise<void> {
    return this.revocations.catchUp();
  }

  /** Told, synchronously, of each revocation this service applies from key_revocations; returns the remover. */
  onRevoked(listener: (revoked: ApiKeyRevokedEvent) => void): () => void {
    this.revokedListeners.push(listener);
    return () => {
      const at = this.revokedListeners.indexOf(listener);
      if (at >= 0) this.revokedListeners.splice(at, 1);
    };
  }

  private revoked(event: ApiKeyRevokedEvent): void {
    this.forgetKey(event.keyId);
    for (const listener of this.revokedListeners) listener(event);
  }

  /** Drops a key from the cache (it was revoked): its next request reads it again, and is refused. */
  forgetKey(keyId: number): void {
    this.forgotten++;
    if (this.revokedKeys.size >= MAX_REVOKED_KEYS)
      this.revokedKeys.delete(this.revokedKeys.values().next().value!);
    this.revokedKeys.add(keyId);
    for (const [hash, entry] of this.cache) if (entry.principal.keyId === keyId) this.cache.delete(hash);
  }

  /** Drops an account's keys from the cache (its plan changed). */
  forgetAccount(accountId: number): void {
    this.forgotten++;
    for (const [hash, entry] of this.cache)
      if (entry.principal.accountId === accountId) this.cache.delete(hash);
  }

  /** Of these key ids, the ones revoked by now (open WebSocket sessions of them must end). */
  revokedAmong(keyIds: readonly number[]): Promise<number[]> {
    return this.keys.revokedAmong(keyIds);
  }
}
