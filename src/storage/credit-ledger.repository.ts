import type { EntityManager } from 'typeorm';
import type { Database } from './database';
import { AccountEntity, CreditLedgerEntryEntity } from './entities';

/** One movement of an account's credits, with the ledger row that explains it. */
export interface CreditMovement {
  accountId: number;
  /** Positive for grants and refunds, negative for charges. */
  delta: number;
  kind: CreditLedgerEntryEntity['kind'];
  reason: string;
  requestId: string | null;
  idempotencyKey?: string | null;
}

/**
 * What a movement found: the balance after it (or, when a debit was not covered, the balance that
 * did not cover it); no balance when the account does not exist.
 */
export type MoveOutcome = { moved: true; balance: number } | { moved: false; balance: number | null };

/** Balances and the credit ledger, outside the usage meter's batches (grants, refunds, charges within a transaction). */
export class CreditLedgerRepository {
  constructor(private readonly db: Database) {}

  /** The account's balance, or null when it does not exist. */
  async balanceOf(accountId: number): Promise<number | null> {
    const account = await this.db.manager.findOne(AccountEntity, { where: { id: accountId } });
    return account ? account.credits : null;
  }

  /**
   * Moves credits inside the caller's transaction: a conditional UPDATE (a debit only where the
   * balance covers it, so a balance never goes below zero) and, when it changed the balance, the
   * ledger row with the balance after it.
   */
  async move(m: EntityManager, movement: CreditMovement): Promise<MoveOutcome> {
    const { accountId, delta } = movement;
    const update = m
      .createQueryBuilder()
      .update(AccountEntity)
      .set({ credits: () => `credits + ${delta}` })
      .where('id = :accountId', { accountId });
    if (delta < 0) update.andWhere('credits >= :needed', { needed: -delta });
    const result = await update.execute();
    const account = await m.findOne(AccountEntity, { where: { id: accountId } });
    if (!account) return { moved: false, balance: null };
    if (!result.affected) return { moved: false, balance: account.credits };
    await m.insert(CreditLedgerEntryEntity, {
      accountId,
      delta,
      balanceAfter: account.credits,
      kind: movement.kind,
      reason: movement.reason.slice(0, 200),
      requestId: movement.requestId,
      idempotencyKey: movement.idempotencyKey ?? null,
      createdAt: new Date(),
    });
    return { moved: true, balance: account.credits };
  }

  /** Whether a movement with this idempotency key is in the ledger. */
  hasMovement(m: EntityManager, idempotencyKey: string): Promise<boolean> {
    return m.exists(CreditLedgerEntryEntity, { where: { idempotencyKey } });
  }

  /** Up to `limit` of the account's ledger rows, newest first, older than `before` when given. */
  page(accountId: number, limit: number, before?: number): Promise<CreditLedgerEntryEntity[]> {
    const query = this.db.manager
      .createQueryBuilder(CreditLedgerEntryEntity, 'l')
      .where('l.accountId = :accountId', { accountId })
      .orderBy('l.id', 'DESC')
      .take(limit);
    if (before !== undefined) query.andWhere('l.id < :before', { before });
    return query.getMany();
  }
}
