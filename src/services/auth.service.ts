import { In, Not, IsNull } from 'typeorm';
import { Database } from '../db/database';
import { AccountEntity, ApiKeyEntity } from '../entities';
import { AuthError } from '../errors';
import { constantTimeEquals, hashApiKey } from './api-key-codec';
import type { Principal } from './caller';

/** Longest key we even look at: real keys are 47 characters; anything huge is refused unhashed. */
const MAX_KEY_LENGTH = 256;

/**
 * Turns an x-api-key value into a Principal, or throws AuthError naming the problem.
 * Keys are looked up by their SHA-256 hash (the plaintext is never stored), and the stored hash is
 * compared again in constant time so that no timing difference tells how much of a key was right.
 */
export class AuthService {
  constructor(
    private readonly db: Database,
    private readonly demo: { key: string | undefined; accountId: number | null },
  ) {}

  async authenticate(rawKey: string | undefined): Promise<Principal> {
    const key = rawKey?.trim();
    if (!key) throw new AuthError('Missing API key: send it in the x-api-key header');
    if (key.length > MAX_KEY_LENGTH) throw new AuthError('Invalid API key');
    if (this.demo.key && this.demo.accountId !== null && constantTimeEquals(key, this.demo.key)) {
      return { accountId: this.demo.accountId, keyId: 'demo', plan: 'demo', isDemo: true };
    }
    const hash = hashApiKey(key);
    const row = await this.db.manager.findOne(ApiKeyEntity, { where: { keyHash: hash } });
    if (!row || !constantTimeEquals(row.keyHash, hash)) throw new AuthError('Invalid API key');
    if (row.revokedAt) throw new AuthError('This API key has been revoked');
    const account = await this.db.manager.findOneOrFail(AccountEntity, { where: { id: row.accountId } });
    return { accountId: account.id, keyId: row.id, plan: account.plan, isDemo: account.isDemo };
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
