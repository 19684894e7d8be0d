import { AccountRepository } from '../../storage/account.repository';
import { Database } from '../../storage/database';
import { AccountEntity, ApiKeyEntity, KeyRevocationEntity } from '../../storage/entities';
import { ConflictError, NotFoundError, ValidationError } from '../../errors';
import { ApiKeyRevokedEvent, EventBus, PlanChangedEvent, TOPICS } from '../../platform/event-bus';
import type { PlanCatalog } from '../../plans/plan-catalog';
import { displayPrefix, generateApiKey, generateSigningSecret, hashApiKey } from './api-key-codec';
import { CreditService } from './credit.service';
import type { SecretColumn } from '../../storage/secret.repository';
import type { SecretVault } from './secret-vault';

export interface CreatedSigningSecret {
  secret: string;
  /** Until when the replaced secret still signs callbacks; null when none was replaced or no grace. */
  previousValidUntil: Date | null;
}

export interface CreatedKey {
  accountId: number;
  keyId: number;
  /** The plaintext key: returned once, never stored. */
  apiKey: string;
}

export interface AccountSummary {
  id: number;
  name: string;
  email: string;
  plan: string;
  credits: number;
  hasSigningSecret: boolean;
  createdAt: Date;
  keys: { id: number; prefix: string; createdAt: Date; revokedAt: Date | null }[];
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** Operator actions on accounts (the admin CLI) and the caller's own account view. */
export class AccountService {
  private readonly accounts = new AccountRepository();

  constructor(
    private readonly db: Database,
    private readonly credits: CreditService,
    private readonly plans: PlanCatalog,
    /** Told of revoked keys (apiKeyRevoked) and plan changes: WebSocket sessions close, key caches drop them. */
    private readonly events: EventBus,
    /** Seals signing secrets under SECRETS_KEY; without it they are stored as given. */
    private readonly secrets?: SecretVault,
  ) {}

  async createAccount(input: {
    name: string;
    email: string;
    plan: string;
    credits: number;
  }): Promise<CreatedKey> {
    const name = input.name?.trim();
    if (!name || name.length > 200)
      throw new ValidationError('name', 'name is required (at most 200 characters)');
    if (!EMAIL.test(input.email ?? '')) throw new ValidationError('email', 'email must be an email address');
    this.requirePlan(input.plan);
    if (!Number.isSafeInteger(input.credits) || input.credits < 0) {
      throw new ValidationError('credits', 'credits must be a non-negative whole number');
    }
    const apiKey = generateApiKey();
    const plan = input.plan;
    const ids = await this.db.transaction(async (m) => {
      const taken = await this.accounts.emailTaken(m, input.email);
      if (taken) throw new ConflictError(`An account with the email ${input.email} exists already`);
      const inserted = await m.insert(AccountEntity, {
        name,
        email: input.email,
        plan,
        credits: 0,
        signingSecret: null,
        isDemo: false,
        createdAt: new Date(),
      });
      const accountId = Number(inserted.identifiers[0].id);
      const keyId = await this.insertKey(m, accountId, apiKey);
      return { accountId, keyId };
    });
    if (input.credits > 0) await this.credits.grant(ids.accountId, input.credits, 'initial credits');
    return { ...ids, apiKey };
  }

  async createKey(accountId: number): Promise<CreatedKey> {
    await this.requireAccount(accountId);
    const apiKey = generateApiKey();
    const keyId = await this.db.transaction((m) => this.insertKey(m, accountId, apiKey));
    return { accountId, keyId, apiKey };
  }

  /** Revokes a key by id or by its plaintext; returns the revoked key's id. */
  async revokeKey(selector: { keyId?: number; apiKey?: string }): Promise<number> {
    const key = await this.db.transaction(async (m) => {
      const where = selector.apiKey ? { keyHash: hashApiKey(selector.apiKey) } : { id: selector.keyId };
      const found = await m.findOne(ApiKeyEntity, { where });
      if (!found) throw new NotFoundError('API key not found');
      if (!found.revokedAt) {
        const revokedAt = new Date();
        await m.update(ApiKeyEntity, { id: found.id }, { revokedAt });
        // In the same transaction: processes that are not told by an event read it (AuthService).
        await m.insert(KeyRevocationEntity, { keyId: found.id, accountId: found.accountId, revokedAt });
      }
      return found;
    });
    // After the commit, so a listener re-reading the key sees it revoked.
    const event: ApiKeyRevokedEvent = { keyId: key.id, accountId: key.accountId };
    this.events.publish(TOPICS.apiKeyRevoked, event);
    return key.id;
  }

  async setPlan(accountId: number, plan: string): Promise<void> {
    this.requirePlan(plan);
    await this.requireAccount(accountId);
    await this.db.transaction((m) => m.update(AccountEntity, { id: accountId }, { plan }));
    const event: PlanChangedEvent = { accountId, plan };
    this.events.publish(TOPICS.planChanged, event);
  }

  private requirePlan(plan: string): void {
    if (typeof plan !== 'string' || !this.plans.has(plan))
      throw new ValidationError('plan', `plan must be one of ${this.plans.names.join(', ')}`);
  }

  /**
   * Creates (or replaces) the callback signing secret and returns it once. A replaced secret keeps
   * signing callbacks beside the new one (a second Standard Webhooks signature) for `graceMs`, so
   * receivers can move to the new secret without rejecting deliveries; 0 ends it at once (a leak).
   */
  async createSigningSecret(accountId: number, graceMs = 0, now = new Date()): Promise<CreatedSigningSecret> {
    const account = await this.requireAccount(accountId);
    const secret = generateSigningSecret();
    const seal = (value: string, column: SecretColumn) =>
      this.secrets ? this.secrets.sealSigningSecret(accountId, value, column) : value;
    const replaced = this.secrets
      ? this.secrets.openSigningSecret(accountId, account.signingSecret)
      : account.signingSecret;
    const previousValidUntil = replaced !== null && graceMs > 0 ? new Date(now.getTime() + graceMs) : null;
    await this.db.transaction((m) =>
      m.update(
        AccountEntity,
        { id: accountId },
        {
          signingSecret: seal(secret, 'signing_secret'),
          previousSigningSecret: previousValidUntil ? seal(replaced!, 'previous_signing_secret') : null,
          previousSigningSecretUntil: previousValidUntil,
        },
      ),
    );
    return { secret, previousValidUntil };
  }

  async show(accountId: number): Promise<AccountSummary> {
    const account = await this.requireAccount(accountId);
    const keys = await this.db.manager.find(ApiKeyEntity, { where: { accountId }, order: { id: 'ASC' } });
    return {
      id: account.id,
      name: account.name,
      email: account.email,
      plan: account.plan,
      credits: account.credits,
      hasSigningSecret: Boolean(account.signingSecret),
      createdAt: account.createdAt,
      keys: keys.map((k) => ({
        id: k.id,
        prefix: k.keyPrefix,
        createdAt: k.createdAt,
        revokedAt: k.revokedAt,
      })),
    };
  }

  /** Every account (demo included), oldest first, without keys or secrets. */
  async listAccounts(): Promise<Omit<AccountSummary, 'keys' | 'hasSigningSecret'>[]> {
    const accounts = await this.db.manager.find(AccountEntity, { order: { id: 'ASC' } });
    return accounts.map((a) => ({
      id: a.id,
      name: a.name,
      email: a.email,
      plan: a.plan,
      credits: a.credits,
      createdAt: a.createdAt,
    }));
  }

  async requireAccount(accountId: number): Promise<AccountEntity> {
    const account = await this.db.manager.findOne(AccountEntity, { where: { id: accountId } });
    if (!account) throw new NotFoundError(`Account ${accountId} not found`);
    return account;
  }

  /**
   * The account behind DEMO_API_KEY, created on first start. It has no keys of its own: the demo key
   * is compared against the setting, and the account only carries its usage counter.
   */
  async ensureDemoAccount(): Promise<number> {
    return this.db.transaction(async (m) => {
      const existing = await m.findOne(AccountEntity, { where: { isDemo: true } });
      if (existing) return existing.id;
      const inserted = await m.insert(AccountEntity, {
        name: 'Demo',
        email: 'demo@localhost.invalid',
        plan: 'demo',
        credits: 0,
        signingSecret: null,
        isDemo: true,
        createdAt: new Date(),
      });
      return Number(inserted.identifiers[0].id);
    });
  }

  private async insertKey(
    m: import('typeorm').EntityManager,
    accountId: number,
    apiKey: string,
  ): Promise<number> {
    const inserted = await m.insert(ApiKeyEntity, {
      accountId,
      keyHash: hashApiKey(apiKey),
      keyPrefix: displayPrefix(apiKey),
      createdAt: new Date(),
      revokedAt: null,
    });
    return Number(inserted.identifiers[0].id);
  }
}
