import type { EntityManager } from 'typeorm';
import { CreditLedgerRepository, type CreditMovement } from '../../storage/credit-ledger.repository';
import type { Database } from '../../storage/database';
import type { CreditLedgerEntryEntity } from '../../storage/entities';
import { InsufficientCreditsError, NotFoundError, ValidationError } from '../../errors';
import { CreditsChangedEvent, EventBus, TOPICS } from '../../platform/event-bus';
import type { Caller } from './caller';
import type { UsageMeter } from './usage-meter';

export interface LedgerPage {
  entries: CreditLedgerEntryEntity[];
  /** Id to pass as `before` for the next (older) page, or null at the end. */
  nextBefore: number | null;
}

/**
 * Credits: the balance changes only by a conditional UPDATE plus a ledger row in one transaction,
 * so the balance can never go negative, even with many concurrent requests on one account.
 *
 * Metered work is charged after it succeeds (`charge`), with a cheap `ensureAffordable` check
 * before the work starts; a request that fails is therefore never charged, and one that loses a
 * race for the last credits gets InsufficientCreditsError and is not charged either.
 * The demo account is limited by its daily request count instead of credits.
 */
export class CreditService {
  private readonly ledgerRows: CreditLedgerRepository;

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly meter: UsageMeter,
  ) {
    this.ledgerRows = new CreditLedgerRepository(db);
  }

  async balance(accountId: number): Promise<number> {
    const credits = await this.ledgerRows.balanceOf(accountId);
    if (credits === null) throw new NotFoundError(`Account ${accountId} not found`);
    return credits;
  }

  /** Throws InsufficientCreditsError when the balance cannot cover `amount` now. */
  async ensureAffordable(caller: Caller, amount: number): Promise<void> {
    if (caller.principal.isDemo || amount <= 0) return;
    const available = await this.balance(caller.principal.accountId);
    if (available < amount) throw new InsufficientCreditsError(amount, available);
  }

  /**
   * Charges `amount` (may be 0) and records it on the caller's meter; returns the new balance.
   * Goes through the usage meter's group commit, like every metered request's charge.
   */
  async charge(caller: Caller, amount: number, reason: string): Promise<number> {
    assertWholeCredits(amount);
    return this.meter.settle({ caller, count: false, charge: amount, reason });
  }

  /** Adds credits (operator grant or refund). */
  async grant(
    accountId: number,
    amount: number,
    reason: string,
    kind: 'grant' | 'refund' = 'grant',
  ): Promise<number> {
    assertWholeCredits(amount);
    const balance = await this.db.transaction((m) =>
      this.move(m, { accountId, delta: amount, kind, reason, requestId: null }),
    );
    this.announce(accountId, balance, amount, reason);
    return balance;
  }

  /** Published after the commit, so a subscriber never sees a balance that was rolled back. */
  announce(accountId: number, credits: number, delta: number, reason: string): void {
    const event: CreditsChangedEvent = { accountId, credits, delta, reason };
    this.events.publish(TOPICS.creditsChanged, event);
  }

  /** A charge inside the caller's own transaction (e.g. a list finalised together with its charge). */
  async chargeWithin(m: EntityManager, caller: Caller, amount: number, reason: string): Promise<number> {
    assertWholeCredits(amount);
    const remaining = await this.move(m, {
      accountId: caller.principal.accountId,
      delta: -amount,
      kind: 'charge',
      reason,
      requestId: caller.requestId,
    });
    caller.meter.spent += amount;
    caller.meter.remaining = remaining;
    return remaining;
  }

  /**
   * A refund inside the caller's transaction that happens at most once per `key` (e.g. "job:42"):
   * the new balance, or null when that key was refunded already. A run racing another one fails on
   * the ledger's unique key and rolls back with its transaction. announce() it after the commit.
   */
  async refundOnce(
    m: EntityManager,
    key: string,
    accountId: number,
    amount: number,
    reason: string,
  ): Promise<number | null> {
    return this.moveOnce(m, key, accountId, amount, reason, 'refund');
  }

  /**
   * A charge without a request (work a worker did for an account) that happens at most once per
   * `key`, like refundOnce: the new balance, or null when that key was charged already.
   * InsufficientCreditsError when the balance cannot cover it (nothing is moved).
   */
  async chargeOnce(
    m: EntityManager,
    key: string,
    accountId: number,
    amount: number,
    reason: string,
  ): Promise<number | null> {
    return this.moveOnce(m, key, accountId, amount, reason, 'charge');
  }

  private async moveOnce(
    m: EntityManager,
    key: string,
    accountId: number,
    amount: number,
    reason: string,
    kind: 'refund' | 'charge',
  ): Promise<number | null> {
    assertWholeCredits(amount);
    if (await this.ledgerRows.hasMovement(m, key)) return null;
    return this.move(m, {
      accountId,
      delta: kind === 'charge' ? -amount : amount,
      kind,
      reason,
      requestId: null,
      idempotencyKey: key,
    });
  }

  async ledger(accountId: number, limit: number, before?: number): Promise<LedgerPage> {
    const rows = await this.ledgerRows.page(accountId, limit + 1, before);
    const entries = rows.slice(0, limit);
    return { entries, nextBefore: rows.length > limit ? entries[entries.length - 1].id : null };
  }

  /** A balance never goes below zero: a debit the balance cannot cover is refused, and changes nothing. */
  private async move(m: EntityManager, movement: CreditMovement): Promise<number> {
    const outcome = await this.ledgerRows.move(m, movement);
    if (outcome.balance === null) throw new NotFoundError(`Account ${movement.accountId} not found`);
    if (!outcome.moved) throw new InsufficientCreditsError(-movement.delta, outcome.balance);
    return outcome.balance;
  }
}

function assertWholeCredits(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new ValidationError('credits', `credits must be a non-negative whole number, got ${amount}`);
  }
}
