import { marks, paddedToPowerOfTwo as padded } from '../../storage/padded-lists';
import { RawSql, SqlSession } from '../../storage/raw-sql';
import { MYSQL_SCRIPT_STOP, type ScriptRunner, type ScriptStep } from '../../storage/script';
import { AuthError, InsufficientCreditsError, QuotaError } from '../../errors';
import { ApiKeyRevokedEvent, CreditsChangedEvent, EventBus, TOPICS } from '../../platform/event-bus';
import { logger } from '../../platform/logger';
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

/** Most settlements one transaction takes; more wait for the next. */
const MAX_BATCH = 500;

/** The quick count did not fit every account (see countIfAllFit): the batch is written again, exactly. */
class CountersMissed extends Error {}

/** `n` branches of a CASE on an id: "WHEN ? THEN ? WHEN ? THEN ?". */
const whenThen = (n: number): string => Array.from({ length: n }, () => 'WHEN ? THEN ?').join(' ');

/** The requests of one account a quota period counts. */
interface QuotaEntry {
  accountId: number;
  limit: QuotaLimit;
  counted: Pending[];
}

/**
 * Quota counts, credit charges and their ledger rows, group-committed: the settlements of every
 * request that arrives while a transaction runs are written together by the next one. A stored
 * lookup used to cost two transactions of its own (13 statements, each account's requests queued on
 * the same two rows, an fsync each on MariaDB); now a batch of N requests of any number of accounts
 * costs a handful of statements: a locking read of the balances that also names the batch's revoked
 * keys, an UPDATE of the quota counters (made only if every account's requests fit: see count), an
 * UPDATE of the balances and one INSERT of the ledger rows: 6 round trips on MariaDB with BEGIN and
 * COMMIT, whatever the batch holds.
 *
 * Nothing is buffered past its transaction, so every guarantee stays exact:
 * - the quota: the counter is raised by the whole batch only while it stays within the limit;
 *   otherwise exactly the requests that still fit are counted and the rest refused (QuotaError);
 * - the balance: charged by the whole batch only if it covers it; otherwise request by request in
 *   arrival order, refusing (InsufficientCreditsError) the ones it cannot cover, never below zero;
 * - the ledger: one row per charge, in the same transaction as the balance change, with the balance
 *   after that charge and the request's id;
 * - revocation: a key revoked since it was cached is refused here, in every process, before
 *   anything is counted (AuthError), and dropped from the key cache.
 * A settlement resolves with the balance after it (the credit headers), once committed.
 */
export class UsageMeter {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Batches sent and not yet settled. */
  private inFlight = 0;
  /** Accounts whose quota ran out, until the end of that period: refused before any work. */
  private readonly exhausted = new Map<number, { period: string; error: QuotaError }>();
  /** With a script runner, how batches were written: as one script, or again as the exact transaction. */
  readonly trips = { oneTrip: 0, transaction: 0 };

  constructor(
    private readonly sql: RawSql,
    private readonly dialect: 'sqlite' | 'mysql',
    private readonly plans: PlanCatalog,
    private readonly clock: QuotaClock,
    private readonly events: EventBus,
    private readonly onRevoked: (revoked: ApiKeyRevokedEvent) => void,
    /** Where batches are first tried as one script (see writeInOneTrip); null: transactions only. */
    private readonly script: ScriptRunner | null = null,
  ) {}

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
      // on them fast (fields added later made each batch's items take new shapes, about 3% of the
      // main thread's CPU in a perf profile under the bench's load).
      this.pending.push({
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
      this.schedule();
    });
  }

  /**
   * The requests of this turn of the event loop join the next batch, sent in the loop's check
   * phase. A script runner may take a second batch while the first runs (SQLite's thread does):
   * it waits at the database's end and starts as soon as the first is done, instead of when the
   * event loop gets round to the first one's answer. Transactions run one batch at a time (two at
   * once on MariaDB only contended for the same rows).
   */
  private schedule(): void {
    if (this.scheduled || this.pending.length === 0 || this.inFlight >= (this.script?.inFlight ?? 1)) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.pending.length > 0 && this.inFlight < (this.script?.inFlight ?? 1)) {
        const batch = this.pending.splice(0, MAX_BATCH);
        this.inFlight++;
        void this.settleBatch(batch).finally(() => {
          this.inFlight--;
          this.schedule();
        });
      }
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
   * With a script runner (MariaDB's one round trip, SQLite's thread when turned on): the script
   * first, and when it stopped (or failed before committing), the exact transaction. Otherwise the
   * quick transaction, and the exact one when the quick count missed. (With two SQLite batches in
   * flight, a stopped first batch is written after the second: each stays exact, but at a quota's
   * boundary a later request may be the one that fits.)
   */
  private async writeBatch(batch: Pending[]): Promise<void> {
    if (this.script) {
      if (await this.writeInOneTrip(this.script, batch)) {
        this.trips.oneTrip++;
        return;
      }
      this.trips.transaction++;
      await this.sql.transaction((session) => this.write(session, batch, true));
      return;
    }
    await this.sql
      .transaction((session) => this.write(session, batch, false))
      .catch((error: unknown) => {
        if (!(error instanceof CountersMissed)) throw error;
        return this.sql.transaction((session) => this.write(session, batch, true));
      });
  }

  private async write(session: SqlSession, batch: Pending[], exact: boolean): Promise<void> {
    const groups = this.groupsOf(batch);
    const balances = await this.lockAccounts(session, groups, batch);
    await this.count(session, groups, exact);
    await this.charge(session, groups, balances);
  }

  /**
   * The batch's requests by account, in account order: rows are locked in that order (balances,
   * then counters), so concurrent batches of two processes cannot deadlock. Clears what an earlier
   * attempt at the batch worked out.
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

  /**
   * The usual batch as one script (ScriptRunner): on MariaDB/MySQL one round trip instead of six,
   * on SQLite a transaction on a thread of its own instead of the event loop's. Each write is
   * conditioned so that it changes exactly the rows it would if every request fits, and the script
   * stops before its commit when a step does not find what it expects. The usual batch: no revoked
   * key, every account's requests within its quota and covered by its balance. Anything else (a
   * stopped script, a deadlock, any statement's error) resolves false, and the batch is written by
   * the exact transaction; only a broken connection (where whether the script committed is
   * unknown) rejects, as a broken COMMIT always did.
   *
   * On MariaDB/MySQL the writes stop the script themselves (MYSQL_SCRIPT_STOP) instead of being
   * checked by a guard statement each: the locking read of the balances stops at a revoked key of
   * the batch, the counters are raised by one upsert that stops where an account's count would
   * pass its limit (and starts a period's counter, which the exact transaction used to do), the
   * balances' UPDATE stops where one does not cover its debit. A usual batch is then five
   * statements instead of eleven: each statement the server parses and answers with a packet of
   * its own, and the API reads. The ledger INSERT needs no check: it writes a row per charge of
   * every account whose balance was debited (it joins the accounts). An account row cannot be
   * missing (api_keys' foreign key keeps every key's account); were it missing anyway, it would be
   * neither debited nor written to the ledger, and its charged requests are refused once the script
   * has committed, as the exact transaction refuses them (no balance to read).
   *
   * On SQLite the steps carry their expectations (rows changed, no row found), checked by the
   * thread between statements. The balances are read under lock first; the ledger rows' balance
   * after each charge is the account's new balance plus what the account's later requests of the
   * batch were charged.
   */
  private async writeInOneTrip(script: ScriptRunner, batch: Pending[]): Promise<boolean> {
    try {
      await script.open();
    } catch {
      return false;
    }
    const selfStopping = this.dialect === 'mysql';
    const groups = this.groupsOf(batch);
    const ids = padded(groups.map(([id]) => id));
    const keys = this.keyIdsOf(batch);
    const revoked = `SELECT id FROM api_keys WHERE revoked_at IS NOT NULL AND id IN (${marks(keys.length)})`;
    // MariaDB/MySQL: the locking read itself stops the script at a revoked key of the batch.
    const stopAtRevoked = selfStopping && keys.length > 0;
    const revokedColumn = stopAtRevoked
      ? `, IF(EXISTS (${revoked}), ${MYSQL_SCRIPT_STOP}, 0) AS revoked`
      : '';
    const steps: ScriptStep[] = [
      {
        sql: `SELECT id, credits${revokedColumn} FROM accounts WHERE id IN (${marks(ids.length)})${this.forUpdate}`,
        params: stopAtRevoked ? [...keys, ...ids] : ids,
      },
    ];
    if (!selfStopping && keys.length > 0) steps.push({ sql: revoked, params: keys, noRows: true });
    for (const [period, entries] of this.quotaEntries(groups)) {
      if (!selfStopping) {
        steps.push({ ...this.countIfAllFitStatement(period, entries), changes: entries.length });
        continue;
      }
      // A new counter starts at the batch's count: only where that fits.
      if (entries.some(({ limit, counted }) => counted.length > limit.limit)) return false;
      steps.push(this.countOrStopStatement(period, entries));
    }
    // Every charge paid, from balances equal to the accounts' totals: each request's balance after
    // it is then what its account is charged after it, the final balance 0.
    const totals = new Map(
      groups.map(([id, items]) => [id, items.reduce((sum, item) => sum + this.chargeOf(item), 0)]),
    );
    const { debits, paid } = this.allocate(groups, totals);
    if (debits.length > 0)
      steps.push(
        selfStopping
          ? this.debitStatement(debits, 'or-stop')
          : { ...this.debitStatement(debits, 'if-covered'), changes: debits.length },
      );
    if (paid.length > 0)
      steps.push({
        ...this.ledgerInsert(paid, 'after-new-balance'),
        ...(selfStopping ? {} : { changes: paid.length }),
      });
    let outcome;
    try {
      outcome = await script.run(steps);
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      // Another process's batch (a deadlock, a lock wait) or any statement's error: written again.
      logger.debug({ err: error }, 'one-trip metering batch failed, written again');
      return false;
    }
    if (!outcome.committed) return false;
    const rows = outcome.results[0] as { id: number; credits: number }[];
    const before = new Map(rows.map((row) => [Number(row.id), Number(row.credits)]));
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

  private keyIdsOf(batch: Pending[]): number[] {
    const keyIds = new Set<number>();
    for (const item of batch) {
      const { keyId } = item.caller.principal;
      if (typeof keyId === 'number') keyIds.add(keyId);
    }
    return keyIds.size > 0 ? padded([...keyIds]) : [];
  }

  /**
   * Locks the batch's accounts and reads their balances, and in the same statement which of the
   * batch's keys have been revoked: their requests are refused before anything is counted
   * (AuthError) and the keys dropped from the key cache. One round trip where there were two: on
   * MariaDB each one is a turn of both processes on a busy machine, and the batch's length is what
   * its requests wait for.
   */
  private async lockAccounts(
    session: SqlSession,
    groups: [number, Pending[]][],
    batch: Pending[],
  ): Promise<Map<number, number>> {
    const ids = padded(groups.map(([id]) => id));
    const keys = this.keyIdsOf(batch);
    const revokedColumn =
      keys.length > 0
        ? '(SELECT GROUP_CONCAT(k.id) FROM api_keys k WHERE k.account_id = accounts.id ' +
          `AND k.revoked_at IS NOT NULL AND k.id IN (${marks(keys.length)}))`
        : 'NULL';
    const rows = await session.all<{ id: number; credits: number; revoked: string | null }>(
      `SELECT id, credits, ${revokedColumn} AS revoked FROM accounts WHERE id IN (${marks(ids.length)})${this.forUpdate}`,
      [...keys, ...ids],
    );
    const revoked = new Set(
      rows.flatMap((row) => (row.revoked ? String(row.revoked).split(',').map(Number) : [])),
    );
    const announced = new Set<number>();
    for (const item of batch) {
      const { keyId, accountId } = item.caller.principal;
      if (typeof keyId !== 'number' || !revoked.has(keyId)) continue;
      item.failed = new AuthError('This API key has been revoked');
      if (!announced.has(keyId)) this.onRevoked({ keyId, accountId });
      announced.add(keyId);
    }
    return new Map(rows.map((row) => [Number(row.id), Number(row.credits)]));
  }

  /**
   * Counts the batch's counted requests toward their accounts' quotas, all accounts of a period at
   * once. First (`exact` false) with one UPDATE that counts them only if every account's requests
   * fit (countIfAllFit); when they do not, the batch is rolled back and written again with `exact`:
   * one locking read of the counters, one UPDATE (a CASE per account), plus an INSERT for a counter
   * the period has not seen yet. An account's requests are all counted when they fit, else exactly
   * those that still fit, in arrival order, and the rest refused.
   */
  private async count(session: SqlSession, groups: [number, Pending[]][], exact: boolean): Promise<void> {
    for (const [period, entries] of this.quotaEntries(groups)) {
      if (!exact) {
        if (await this.countIfAllFit(session, period, entries)) continue;
        throw new CountersMissed();
      }
      const ids = padded(entries.map((entry) => entry.accountId));
      const read = () =>
        session.all<{ account_id: number; count: number }>(
          `SELECT account_id, count FROM usage_counters WHERE period = ? AND account_id IN (${marks(ids.length)})` +
            this.forUpdate,
          [period, ...ids],
        );
      let rows = await read();
      if (rows.length < entries.length) {
        // The period's first requests of some account: its counter starts at 0.
        const known = new Set(rows.map((row) => Number(row.account_id)));
        for (const { accountId } of entries.filter((entry) => !known.has(entry.accountId))) {
          await session.run(
            `INSERT ${this.dialect === 'sqlite' ? 'OR IGNORE' : 'IGNORE'} INTO usage_counters (account_id, period, count) VALUES (?, ?, 0)`,
            [accountId, period],
          );
        }
        rows = await read();
      }
      const counts = new Map(rows.map((row) => [Number(row.account_id), Number(row.count)]));
      const increments: [number, number][] = [];
      for (const { accountId, limit, counted } of entries) {
        const fit = Math.max(0, Math.min(counted.length, limit.limit - (counts.get(accountId) ?? 0)));
        if (fit > 0) increments.push([accountId, fit]);
        if (fit === counted.length) continue;
        const error = this.clock.quotaError(counted[0].caller.principal, limit);
        this.exhausted.set(accountId, { period, error });
        for (const item of counted.slice(fit)) item.failed = error;
      }
      if (increments.length === 0) continue;
      const cases = padded(increments);
      await session.run(
        `UPDATE usage_counters SET count = count + CASE account_id ${whenThen(cases.length)} END ` +
          `WHERE period = ? AND account_id IN (${marks(cases.length)})`,
        [...cases.flat(), period, ...cases.map(([id]) => id)],
      );
    }
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
   * The usual case in one statement instead of a locking read and an UPDATE: every account's
   * requests fit under its limit, so its counter is raised where it is at most its limit minus its
   * requests. Whether every account's counter was raised is what the changed rows say; when not
   * (a period's first request, a quota running out), the caller rolls the whole batch back and
   * counts it again exactly (CountersMissed).
   */
  private async countIfAllFit(session: SqlSession, period: string, entries: QuotaEntry[]): Promise<boolean> {
    const { sql, params } = this.countIfAllFitStatement(period, entries);
    return (await session.run(sql, params)) === entries.length;
  }

  /** countIfAllFit's UPDATE: it changes one row per account exactly when every account fits. */
  private countIfAllFitStatement(
    period: string,
    entries: QuotaEntry[],
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const cases = padded(entries.map(({ accountId, counted }) => [accountId, counted.length] as const));
    const ceilings = padded(
      entries.map(({ accountId, limit, counted }) => [accountId, limit.limit - counted.length]),
    );
    return {
      sql:
        `UPDATE usage_counters SET count = count + CASE account_id ${whenThen(cases.length)} END ` +
        `WHERE period = ? AND account_id IN (${marks(cases.length)}) ` +
        `AND count <= CASE account_id ${whenThen(ceilings.length)} END`,
      params: [...cases.flat(), period, ...cases.map(([id]) => id), ...ceilings.flat()],
    };
  }

  /**
   * MariaDB/MySQL's count in a script (see writeInOneTrip): one upsert of every account's counter
   * of the period, raised by the account's requests where the result stays within its limit and
   * stopping the script where it would not; a counter the period has not seen yet starts at the
   * account's requests (the caller has checked that they fit).
   */
  private countOrStopStatement(
    period: string,
    entries: QuotaEntry[],
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const limits = padded(entries.map(({ accountId, limit }) => [accountId, limit.limit] as const));
    return {
      sql:
        'INSERT INTO usage_counters (account_id, period, count) VALUES ' +
        entries.map(() => '(?, ?, ?)').join(', ') +
        ` ON DUPLICATE KEY UPDATE count = IF(count + VALUES(count) <= CASE account_id ${whenThen(limits.length)} END, ` +
        `count + VALUES(count), ${MYSQL_SCRIPT_STOP})`,
      params: [
        ...entries.flatMap(({ accountId, counted }) => [accountId, period, counted.length]),
        ...limits.flat(),
      ],
    };
  }

  /**
   * Charges every account of the batch at once, from the balances read under lock: one UPDATE (a
   * CASE per account) and one INSERT of the ledger rows, whatever the number of accounts.
   */
  private async charge(
    session: SqlSession,
    groups: [number, Pending[]][],
    balances: Map<number, number>,
  ): Promise<void> {
    const { debits, paid } = this.allocate(groups, balances);
    if (debits.length > 0) {
      const { sql, params } = this.debitStatement(debits, 'as-allocated');
      await session.run(sql, params);
    }
    if (paid.length > 0) {
      const { sql, params } = this.ledgerInsert(paid, 'as-computed');
      await session.run(sql, params);
    }
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

  /**
   * The balances' UPDATE, a CASE per account: as allocated from balances read under lock, or, in a
   * script that has not read them, only where the balance covers the debit (`if-covered`: the
   * script's step then expects one changed row per account), or stopping the script where it does
   * not (`or-stop`, MariaDB/MySQL: MYSQL_SCRIPT_STOP).
   */
  private debitStatement(
    debits: [number, number][],
    only: 'as-allocated' | 'if-covered' | 'or-stop',
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const cases = padded(debits);
    if (only === 'or-stop') {
      const debit = `CASE id ${whenThen(cases.length)} END`;
      return {
        sql:
          `UPDATE accounts SET credits = IF(credits >= ${debit}, credits - ${debit}, ${MYSQL_SCRIPT_STOP}) ` +
          `WHERE id IN (${marks(cases.length)})`,
        params: [...cases.flat(), ...cases.flat(), ...cases.map(([id]) => id)],
      };
    }
    const covered = only === 'if-covered';
    return {
      sql:
        `UPDATE accounts SET credits = credits - CASE id ${whenThen(cases.length)} END ` +
        `WHERE id IN (${marks(cases.length)})` +
        (covered ? ` AND credits >= CASE id ${whenThen(cases.length)} END` : ''),
      params: [...cases.flat(), ...cases.map(([id]) => id), ...(covered ? cases.flat() : [])],
    };
  }

  /** What this request is charged in credits if it is served. */
  private chargeOf(item: Pending): number {
    return item.charge > 0 && this.isCharged(item.caller) ? item.charge : 0;
  }

  /**
   * The batch's ledger rows in one statement: their values go as one JSON array, unpacked by the
   * database (JSON_TABLE on MySQL/MariaDB, json_each on SQLite) in the batch's order, so the ids
   * follow the balances. Multi-row INSERTs took one round trip per chunk (two or three a batch).
   * The balance after each charge is the one computed (`as-computed`), or, in a one-trip script
   * that did not know the balances yet, the account's new balance plus the computed figure
   * (`after-new-balance`).
   */
  private ledgerInsert(
    paid: Pending[],
    balance: 'as-computed' | 'after-new-balance',
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const rows = JSON.stringify(
      paid.map((item) => [
        item.caller.principal.accountId,
        -item.charge,
        item.balanceAfter!,
        item.reason.slice(0, 200),
        item.caller.requestId,
      ]),
    );
    const relative = balance === 'after-new-balance';
    // Each row's values, read from the JSON array by position; the order to insert them in.
    const [value, from, order] =
      this.dialect === 'sqlite'
        ? [(i: number) => `json_extract(j.value, '$[${i}]')`, 'json_each(?) AS j', 'j.key']
        : [
            (i: number) => `r.c${i}`,
            "JSON_TABLE(?, '$[*]' COLUMNS (n FOR ORDINALITY, c0 INT PATH '$[0]', c1 INT PATH '$[1]', " +
              "c2 INT PATH '$[2]', c3 VARCHAR(200) PATH '$[3]', c4 VARCHAR(64) PATH '$[4]')) AS r",
            'r.n',
          ];
    const sql =
      'INSERT INTO credit_ledger (account_id, delta, balance_after, kind, reason, request_id, created_at) ' +
      `SELECT ${value(0)}, ${value(1)}, ${relative ? 'a.credits + ' : ''}${value(2)}, 'charge', ${value(3)}, ` +
      `${value(4)}, ? FROM ${from}` +
      (relative ? ` JOIN accounts a ON a.id = ${value(0)}` : '') +
      ` ORDER BY ${order}`;
    return { sql, params: [new Date(), rows] };
  }

  private get forUpdate(): string {
    return this.dialect === 'mysql' ? ' FOR UPDATE' : '';
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
