import type { Database } from './database';
import { MYSQL_METERING } from './metering.mysql';
import { SQLITE_METERING } from './metering.sqlite';
import { marks, paddedToPowerOfTwo as padded } from './padded-lists';
import { rawSqlOf, type RawSql, type SqlSession } from './raw-sql';
import type { ScriptOutcome, ScriptStep } from './script';

/** What differs between the dialects in the metering statements (metering.sqlite.ts, metering.mysql.ts). */
export interface MeteringDialect {
  /** Appended to a read that locks its rows until the commit. */
  forUpdate: string;
  /** An INSERT that skips a row whose key exists. */
  insertIgnore: string;
  /** The ledger rows, unpacked from one JSON array parameter: column `i` of a row, the source, its order. */
  ledgerRows: { value: (i: number) => string; from: string; order: string };
}

/** An account's balance read under lock, with the batch's keys of it that have been revoked. */
export interface LockedAccount {
  id: number;
  credits: number;
  revokedKeyIds: number[];
}

/** One charge's ledger row. */
export interface LedgerCharge {
  accountId: number;
  /** Credits charged (positive; the row's delta is its negative). */
  charge: number;
  /** The balance after this charge (in a script: after it, less the account's new balance). */
  balanceAfter: number;
  reason: string;
  requestId: string;
}

/** Requests of one account to count toward its quota in a period. */
export interface CounterRaise {
  accountId: number;
  count: number;
  limit: number;
}

/**
 * A batch written by one script, every write conditioned on its fitting: the counters raised only
 * where every account's requests fit, the balances debited only where they cover the debits.
 */
export interface ScriptedBatch {
  accountIds: number[];
  keyIds: number[];
  counts: { period: string; raises: CounterRaise[] }[];
  /** Each account's total debit. */
  debits: [number, number][];
  /** Their balanceAfter relative to the account's new balance (what the account is charged after each). */
  charges: LedgerCharge[];
}

/** `n` branches of a CASE on an id: "WHEN ? THEN ? WHEN ? THEN ?". */
const whenThen = (n: number): string => Array.from({ length: n }, () => 'WHEN ? THEN ?').join(' ');

/**
 * The usage meter's statements: quota counters, balances and ledger rows, for a whole batch of
 * requests of any number of accounts at once (a CASE per account; IN lists and CASE branches padded
 * to a power of two, so each statement exists in a handful of prepared forms). Rows are locked in
 * account order (balances, then counters), so concurrent batches of two processes cannot deadlock.
 */
export class MeteringRepository {
  constructor(
    private readonly sql: RawSql,
    private readonly dialect: MeteringDialect,
  ) {}

  static of(db: Database, sql: RawSql = rawSqlOf(db)): MeteringRepository {
    return new MeteringRepository(sql, db.dialect === 'mysql' ? MYSQL_METERING : SQLITE_METERING);
  }

  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }

  /** Requests counted toward the account's quota in the period (0 when none yet). */
  async countOf(accountId: number, period: string): Promise<number> {
    const [row] = await this.sql.all<{ count: number }>(
      'SELECT count FROM usage_counters WHERE account_id = ? AND period = ?',
      [accountId, period],
    );
    return Number(row?.count ?? 0);
  }

  /**
   * Locks the accounts and reads their balances, and in the same statement which of these keys
   * (of any of them) have been revoked: one round trip where there were two.
   */
  async lockAccounts(session: SqlSession, accountIds: number[], keyIds: number[]): Promise<LockedAccount[]> {
    const ids = padded(accountIds);
    const keys = keyIds.length > 0 ? padded(keyIds) : [];
    const revokedColumn =
      keys.length > 0
        ? '(SELECT GROUP_CONCAT(k.id) FROM api_keys k WHERE k.account_id = accounts.id ' +
          `AND k.revoked_at IS NOT NULL AND k.id IN (${marks(keys.length)}))`
        : 'NULL';
    const rows = await session.all<{ id: number; credits: number; revoked: string | null }>(
      `SELECT id, credits, ${revokedColumn} AS revoked FROM accounts WHERE id IN (${marks(ids.length)})${this.dialect.forUpdate}`,
      [...keys, ...ids],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      credits: Number(row.credits),
      revokedKeyIds: row.revoked ? String(row.revoked).split(',').map(Number) : [],
    }));
  }

  /**
   * The accounts' counters of the period, locked; a counter the period has not seen yet is started
   * at 0 first.
   */
  async lockCounters(
    session: SqlSession,
    period: string,
    accountIds: number[],
  ): Promise<Map<number, number>> {
    const ids = padded(accountIds);
    const read = () =>
      session.all<{ account_id: number; count: number }>(
        `SELECT account_id, count FROM usage_counters WHERE period = ? AND account_id IN (${marks(ids.length)})` +
          this.dialect.forUpdate,
        [period, ...ids],
      );
    let rows = await read();
    if (rows.length < accountIds.length) {
      const known = new Set(rows.map((row) => Number(row.account_id)));
      for (const accountId of accountIds.filter((id) => !known.has(id)))
        await session.run(
          `${this.dialect.insertIgnore} INTO usage_counters (account_id, period, count) VALUES (?, ?, 0)`,
          [accountId, period],
        );
      rows = await read();
    }
    return new Map(rows.map((row) => [Number(row.account_id), Number(row.count)]));
  }

  /** Raises the period's counters by these increments ([account, n]). */
  async raiseCounters(session: SqlSession, period: string, increments: [number, number][]): Promise<void> {
    if (increments.length === 0) return;
    const cases = padded(increments);
    await session.run(
      `UPDATE usage_counters SET count = count + CASE account_id ${whenThen(cases.length)} END ` +
        `WHERE period = ? AND account_id IN (${marks(cases.length)})`,
      [...cases.flat(), period, ...cases.map(([id]) => id)],
    );
  }

  /** Debits each account its total ([account, credits]), as allocated from balances read under lock. */
  async debit(session: SqlSession, debits: [number, number][]): Promise<void> {
    if (debits.length === 0) return;
    const { sql, params } = this.debitStatement(debits, false);
    await session.run(sql, params);
  }

  /** The charges' ledger rows, in their order, with the balances after them as computed. */
  async insertCharges(session: SqlSession, charges: LedgerCharge[]): Promise<void> {
    if (charges.length === 0) return;
    const { sql, params } = this.ledgerInsert(charges, false);
    await session.run(sql, params);
  }

  /**
   * The batch as one script (ScriptRunner) that commits only if every request fits, and otherwise
   * stops before its commit, having changed nothing: the balances read under lock; no revoked key
   * among the batch's (a step that finds no row); each period's counters raised by one UPDATE that
   * changes one row per account exactly when every account's requests fit under its limit (a
   * counter the period has not started does not fit); the balances debited by one UPDATE that
   * changes one row per account exactly when each covers its debit; the ledger rows, each one's
   * balance after it computed from the account's new balance in the INSERT itself (it joins the
   * accounts, so it writes rows only for accounts the debit found).
   */
  scriptOf(batch: ScriptedBatch): ScriptStep[] {
    const ids = padded(batch.accountIds);
    const steps: ScriptStep[] = [
      {
        sql: `SELECT id, credits FROM accounts WHERE id IN (${marks(ids.length)})${this.dialect.forUpdate}`,
        params: ids,
      },
    ];
    if (batch.keyIds.length > 0) {
      const keys = padded(batch.keyIds);
      steps.push({
        sql: `SELECT id FROM api_keys WHERE revoked_at IS NOT NULL AND id IN (${marks(keys.length)})`,
        params: keys,
        noRows: true,
      });
    }
    for (const { period, raises } of batch.counts) {
      const cases = padded(raises.map(({ accountId, count }) => [accountId, count] as const));
      const ceilings = padded(
        raises.map(({ accountId, count, limit }) => [accountId, limit - count] as const),
      );
      steps.push({
        sql:
          `UPDATE usage_counters SET count = count + CASE account_id ${whenThen(cases.length)} END ` +
          `WHERE period = ? AND account_id IN (${marks(cases.length)}) ` +
          `AND count <= CASE account_id ${whenThen(ceilings.length)} END`,
        params: [...cases.flat(), period, ...cases.map(([id]) => id), ...ceilings.flat()],
        changes: raises.length,
      });
    }
    if (batch.debits.length > 0)
      steps.push({ ...this.debitStatement(batch.debits, true), changes: batch.debits.length });
    if (batch.charges.length > 0) steps.push(this.ledgerInsert(batch.charges, true));
    return steps;
  }

  /** The balances a committed script read under lock (its first step), before its debits. */
  balancesReadBy(outcome: ScriptOutcome & { committed: true }): Map<number, number> {
    const rows = outcome.results[0] as { id: number; credits: number }[];
    return new Map(rows.map((row) => [Number(row.id), Number(row.credits)]));
  }

  /** The balances' UPDATE, a CASE per account; `ifCovered`: only where the balance covers the debit. */
  private debitStatement(
    debits: [number, number][],
    ifCovered: boolean,
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const cases = padded(debits);
    return {
      sql:
        `UPDATE accounts SET credits = credits - CASE id ${whenThen(cases.length)} END ` +
        `WHERE id IN (${marks(cases.length)})` +
        (ifCovered ? ` AND credits >= CASE id ${whenThen(cases.length)} END` : ''),
      params: [...cases.flat(), ...cases.map(([id]) => id), ...(ifCovered ? cases.flat() : [])],
    };
  }

  /**
   * The ledger rows in one statement: their values go as one JSON array, unpacked by the database
   * in the array's order, so the ids follow the balances. `relative`: each balance after is added to
   * the account's balance at the time of the INSERT (a script that did not know the balances yet).
   */
  private ledgerInsert(
    charges: LedgerCharge[],
    relative: boolean,
  ): Required<Pick<ScriptStep, 'sql' | 'params'>> {
    const rows = JSON.stringify(
      charges.map((c) => [c.accountId, -c.charge, c.balanceAfter, c.reason.slice(0, 200), c.requestId]),
    );
    const { value, from, order } = this.dialect.ledgerRows;
    const sql =
      'INSERT INTO credit_ledger (account_id, delta, balance_after, kind, reason, request_id, created_at) ' +
      `SELECT ${value(0)}, ${value(1)}, ${relative ? 'a.credits + ' : ''}${value(2)}, 'charge', ${value(3)}, ` +
      `${value(4)}, ? FROM ${from}` +
      (relative ? ` JOIN accounts a ON a.id = ${value(0)}` : '') +
      ` ORDER BY ${order}`;
    return { sql, params: [new Date(), rows] };
  }
}
