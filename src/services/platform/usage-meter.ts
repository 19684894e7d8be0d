import type { LedgerCharge, MeteringRepository, ScriptedBatch } from '../../storage/metering.repository';
import type { SqlSession } from '../../storage/raw-sql';
import type { ScriptRunner } from '../../storage/script';
import { AuthError, InsufficientCreditsError, QuotaError } from '../../errors';
import { ApiKeyRevokedEvent, CreditsChangedEvent, EventBus, TOPICS } from '../../platform/event-bus';
import { logger } from '../../platform/logger';
import { PerTickBatch } from '../../platform/per-tick-batch';
import type { PlanCatalog } from '../../plans/plan-catalog';
import type { Caller } from './caller';
import { QuotaClock, QuotaLimit } from './quota-clock';

/** What one request owes: a count toward its account's quota and/or a charge in credits. */
export interface Settlement {
  caller: Caller;
  /** Count one request toward the quota (every metered request counts, failed ones too). */
  count: boolean;
  /** Credits to charge (0: none). */
  charge: number;
  /** Ledger reason, e.g. "GET /lookup/v1/". */
  reason: string;
}

interface Pending extends Settlement {
  resolve: (remaining: number) => void;
  reject: (error: unknown) => void;
  /** Set while the batch is worked out. */
  failed: unknown;
  balanceAfter: number | undefined;
  paid: boolean;
}

/** Most settlements one batch takes; more wait for the next. */
const MAX_BATCH = 500;

/** The requests of one account a quota period counts. */
interface QuotaEntry {
  accountId: number;
  limit: QuotaLimit;
  counted: Pending[];
}

/**
 * Quota counts, credit charges and their ledger rows, group-committed: the settlements of every
 * request that reaches the meter in one turn of the event loop are written together, whatever the
 * number of accounts, by one of two strategies:
 * - the script (where the database has a ScriptRunner: one round trip on MariaDB/MySQL, a thread
 *   of its own on SQLite): the usual batch, every write conditioned on every request fitting, sent
 *   whole; it commits only if they all fit, and otherwise stops before its commit, having changed
 *   nothing (MeteringRepository.scriptOf);
 * - the exact transaction (a stopped script's batch, and every batch where there is no script
 *   runner): balances and counters read under lock, each request decided one by one.
 *
 * Nothing is buffered past its transaction, so every guarantee stays exact:
 * - the quota: an account's requests are all counted when they fit, else exactly those that still
 *   fit, in arrival order, and the rest refused (QuotaError); the counter never passes its limit;
 * - the balance: charged by the whole batch only if it covers it; otherwise request by request in
 *   arrival order, refusing (InsufficientCreditsError) the ones it cannot cover, never below zero;
 * - the ledger: one row per charge, in the same transaction as the balance change, with the balance
 *   after that charge and the request's id;
 * - revocation: a key revoked since it was cached is refused here, in every process, before
 *   anything is counted (AuthError), and dropped from the key cache.
 * A settlement resolves with the balance after it (the credit headers), once committed.
 */
export class UsageMeter {
  private readonly batches: PerTickBatch<Pending>;
  /** Accounts whose quota ran out, until the end of that period: refused before any work. */
  private readonly exhausted = new Map<number, { period: string; error: QuotaError }>();
  /** How batches were written: as one script, or by the exact transaction. */
  readonly trips = { script: 0, exact: 0 };

  constructor(
    private readonly storage: MeteringRepository,
    private readonly plans: PlanCatalog,
    private readonly clock: QuotaClock,
    private readonly events: EventBus,
    private readonly onRevoked: (revoked: ApiKeyRevokedEvent) => void,
    /** Where batches are first sent as one script; null: the exact transaction only. */
    private readonly script: ScriptRunner | null = null,
  ) {
    // A script runner may take a second batch while the first runs (SQLite's thread does): it waits
    // at the database's end and starts as soon as the first is done. Transactions run one batch at
    // a time (two at once on MariaDB only contended for the same rows).
    this.batches = new PerTickBatch((batch) => this.settleBatch(batch), {
      maxItems: MAX_BATCH,
      maxInFlight: () => this.script?.inFlight ?? 1,
    });
  }

  /** Throws the QuotaError a request of this caller would get, when its quota is known to be used up. */
  refuseIfExhausted(caller: Caller): void {
    const known = this.exhausted.get(caller.principal.accountId);
    if (!known) return;
    const limit = this.quotaOf(caller);
    if (limit && this.clock.periodKey(limit.period) === known.period) throw known.error;
    this.exhausted.delete(caller.principal.accountId);
  }

  /** Settles one request; resolves with the balance after it, once written. */
  settle(settlement: Settlement): Promise<number> {
    return new Promise((resolve, reject) => {
      // Every field from the start, in one order: objects of one shape keep V8's property accesses
      // on them fast.
      this.batches.add({
        caller: settlement.caller,
        count: settlement.count,
        charge: settlement.charge,
        reason: settlement.reason,
        resolve,
        reject,
        failed: undefined,
        balanceAfter: undefined,
        paid: false,
      });
    });
  }

  private async settleBatch(batch: Pending[]): Promise<void> {
    try {
      await this.writeBatch(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const item of batch) {
      if (item.failed !== undefined) item.reject(item.failed);
      else {
        if (item.paid) {
          item.caller.meter.spent += item.charge;
          this.announce(item);
        }
        item.caller.meter.remaining = item.balanceAfter!;
        item.resolve(item.balanceAfter!);
      }
    }
  }

  /**
   * The script first, where there is a runner; when it stopped (or failed before committing), the
   * exact transaction. (With two SQLite batches in flight, a stopped first batch is written after
   * the second: each stays exact, but at a quota's boundary a later request may be the one that fits.)
   */
  private async writeBatch(batch: Pending[]): Promise<void> {
    if (this.script && (await this.writeAsScript(this.script, batch))) {
      this.trips.script++;
      return;
    }
    this.trips.exact++;
    await this.storage.transaction((session) => this.writeExactly(session, batch));
  }

  /**
   * The batch as one script, on the assumption that every request fits: no revoked key, every
   * account's requests within its quota and covered by its balance. True when it committed; false
   * when it stopped (something did not fit), could not start, or failed in a way the exact
   * transaction may not (a deadlock, a lock wait, any statement's error). Only a broken connection
   * (where whether the script committed is unknown) rejects, as a broken COMMIT always did.
   */
  private async writeAsScript(script: ScriptRunner, batch: Pending[]): Promise<boolean> {
    try {
      await script.open();
    } catch {
      return false;
    }
    const groups = this.groupsOf(batch);
    // Every charge paid, from balances equal to the accounts' totals: each request's balance after
    // it is then what its account is charged after it, the final balance 0.
    const totals = new Map(
      groups.map(([id, items]) => [id, items.reduce((sum, item) => sum + this.chargeOf(item), 0)]),
    );
    const { debits, paid } = this.allocate(groups, totals);
    const plan: ScriptedBatch = {
      accountIds: groups.map(([id]) => id),
      keyIds: this.keyIdsOf(batch),
      counts: [...this.quotaEntries(groups)].map(([period, entries]) => ({
        period,
        raises: entries.map(({ accountId, limit, counted }) => ({
          accountId,
          count: counted.length,
          limit: limit.limit,
        })),
      })),
      debits,
      charges: paid.map((item) => this.ledgerRowOf(item)),
    };
    let outcome;
    try {
      outcome = await script.run(this.storage.scriptOf(plan));
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      logger.debug({ err: error }, 'metering script failed, the batch goes to the exact transaction');
      return false;
    }
    if (!outcome.committed) return false;
    const before = this.storage.balancesReadBy(outcome);
    for (const [id, items] of groups) {
      const balance = before.get(id);
      if (balance === undefined) {
        // As the exact transaction does with no balance to read: charges refused, the rest served.
        for (const item of items) {
          const charge = this.chargeOf(item);
          item.paid = false;
          if (charge > 0) item.failed = new InsufficientCreditsError(charge, 0);
          else item.balanceAfter = 0;
        }
        continue;
      }
      const newBalance = balance - (totals.get(id) ?? 0);
      for (const item of items) item.balanceAfter! += newBalance;
    }
    return true;
  }

  /**
   * The batch decided request by request from what is read under lock: the balances (and the
   * batch's revoked keys), then the quota counters, then the charges.
   */
  private async writeExactly(session: SqlSession, batch: Pending[]): Promise<void> {
    const groups = this.groupsOf(batch);
    const accounts = await this.storage.lockAccounts(
      session,
      groups.map(([id]) => id),
      this.keyIdsOf(batch),
    );
    this.refuseRevoked(batch, new Set(accounts.flatMap((account) => account.revokedKeyIds)));
    for (const [period, entries] of this.quotaEntries(groups)) {
      const counts = await this.storage.lockCounters(
        session,
        period,
        entries.map((entry) => entry.accountId),
      );
      const increments: [number, number][] = [];
      for (const { accountId, limit, counted } of entries) {
        const fit = Math.max(0, Math.min(counted.length, limit.limit - (counts.get(accountId) ?? 0)));
        if (fit > 0) increments.push([accountId, fit]);
        if (fit === counted.length) continue;
        const error = this.clock.quotaError(counted[0].caller.principal, limit);
        this.exhausted.set(accountId, { period, error });
        for (const item of counted.slice(fit)) item.failed = error;
      }
      await this.storage.raiseCounters(session, period, increments);
    }
    const balances = new Map(accounts.map((account) => [account.id, account.credits]));
    const { debits, paid } = this.allocate(groups, balances);
    await this.storage.debit(session, debits);
    await this.storage.insertCharges(
      session,
      paid.map((item) => this.ledgerRowOf(item)),
    );
  }

  /** Requests of revoked keys are refused (AuthError), and each key announced once (the key caches drop it). */
  private refuseRevoked(batch: Pending[], revoked: Set<number>): void {
    if (revoked.size === 0) return;
    const announced = new Set<number>();
    for (const item of batch) {
      const { keyId, accountId } = item.caller.principal;
      if (typeof keyId !== 'number' || !revoked.has(keyId)) continue;
      item.failed = new AuthError('This API key has been revoked');
      if (!announced.has(keyId)) this.onRevoked({ keyId, accountId });
      announced.add(keyId);
    }
  }

  /**
   * The batch's requests by account, in account order: rows are locked in that order, so
   * concurrent batches of two processes cannot deadlock. Clears what an earlier attempt at the
   * batch worked out.
   */
  private groupsOf(batch: Pending[]): [number, Pending[]][] {
    const accounts = new Map<number, Pending[]>();
    for (const item of batch) {
      item.failed = undefined;
      item.balanceAfter = undefined;
      item.paid = false;
      const id = item.caller.principal.accountId;
      const items = accounts.get(id);
      if (items) items.push(item);
      else accounts.set(id, [item]);
    }
    return [...accounts].sort(([a], [b]) => a - b);
  }

  private keyIdsOf(batch: Pending[]): number[] {
    const keyIds = new Set<number>();
    for (const item of batch) {
      const { keyId } = item.caller.principal;
      if (typeof keyId === 'number') keyIds.add(keyId);
    }
    return [...keyIds];
  }

  /** The counted requests not refused yet, by quota period and account. */
  private quotaEntries(groups: [number, Pending[]][]): Map<string, QuotaEntry[]> {
    const periods = new Map<string, QuotaEntry[]>();
    for (const [accountId, items] of groups) {
      const counted = items.filter((item) => item.count && item.failed === undefined);
      const limit = counted.length > 0 ? this.quotaOf(counted[0].caller) : null;
      if (!limit) continue;
      const period = this.clock.periodKey(limit.period);
      const entries = periods.get(period) ?? [];
      entries.push({ accountId, limit, counted });
      periods.set(period, entries);
    }
    return periods;
  }

  /**
   * Who pays what from these balances: an account whose balance covers its requests pays for all
   * of them; otherwise its requests are paid in arrival order while the balance lasts and the rest
   * refused (InsufficientCreditsError). Sets each live request's balance after it, and gives each
   * account's total debit and the paying requests in batch order.
   */
  private allocate(
    groups: [number, Pending[]][],
    balances: Map<number, number>,
  ): { debits: [number, number][]; paid: Pending[] } {
    const debits: [number, number][] = [];
    const paid: Pending[] = [];
    for (const [accountId, all] of groups) {
      const items = all.filter((item) => item.failed === undefined);
      let balance = balances.get(accountId) ?? 0;
      const payers: Pending[] = [];
      for (const item of items) {
        const charge = this.chargeOf(item);
        if (charge === 0) continue;
        if (balance >= charge) {
          balance -= charge;
          payers.push(item);
        } else item.failed = new InsufficientCreditsError(charge, balance);
      }
      // Each charge's balance after it: the final balance plus what was charged after it.
      let after = balance;
      for (let i = payers.length - 1; i >= 0; i--) {
        payers[i].paid = true;
        payers[i].balanceAfter = after;
        after += payers[i].charge;
      }
      for (const item of items)
        if (item.failed === undefined && item.balanceAfter === undefined) item.balanceAfter = balance;
      const total = payers.reduce((sum, item) => sum + item.charge, 0);
      if (total > 0) debits.push([accountId, total]);
      paid.push(...payers);
    }
    return { debits, paid };
  }

  private ledgerRowOf(item: Pending): LedgerCharge {
    return {
      accountId: item.caller.principal.accountId,
      charge: item.charge,
      balanceAfter: item.balanceAfter!,
      reason: item.reason,
      requestId: item.caller.requestId,
    };
  }

  /** What this request is charged in credits if it is served. */
  private chargeOf(item: Pending): number {
    return item.charge > 0 && this.isCharged(item.caller) ? item.charge : 0;
  }

  private quotaOf(caller: Caller): QuotaLimit | null {
    return this.clock.limitOf(caller.principal, this.plans.get(caller.principal.plan));
  }

  /** The demo key pays with its daily count, and a plan may be unmetered: neither is charged credits. */
  private isCharged(caller: Caller): boolean {
    return !caller.principal.isDemo && this.plans.get(caller.principal.plan).metered;
  }

  private announce(item: Pending): void {
    const event: CreditsChangedEvent = {
      accountId: item.caller.principal.accountId,
      credits: item.balanceAfter!,
      delta: -item.charge,
      reason: item.reason,
    };
    this.events.publish(TOPICS.creditsChanged, event);
  }
}
