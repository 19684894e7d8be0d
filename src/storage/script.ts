export type ScriptParam = string | number | null | Date;

/**
 * One statement of a transaction script. A step may name what it must find for the script to go
 * on: a write the number of rows it `changes`, a query `noRows`. When it does not, the script
 * stops there and nothing of it is committed.
 */
export interface ScriptStep {
  sql: string;
  params?: ScriptParam[];
  /** A write: the script goes on only if it changed exactly this many rows. */
  changes?: number;
  /** A query: the script goes on only if it found no row (the step gives no result then). */
  noRows?: boolean;
}

/** A script either committed, with one result per step (rows, or the rows changed), or stopped. */
export type ScriptOutcome = { committed: true; results: unknown[] } | { committed: false };

/**
 * A transaction sent whole to where the database runs it, instead of statement by statement from
 * the event loop (the usage meter's batches; see UsageMeter): MySQL/MariaDB as one multi-statement
 * round trip (MysqlScript), SQLite on a thread of its own with its own connection (SqliteScript).
 *
 * `run` resolves `committed: false` when a step's expectation failed (rolled back). It rejects on
 * any other error, after rolling back; the error's `fatal` is set when the connection broke
 * mid-script, where whether it committed is unknown.
 */
export interface ScriptRunner {
  /**
   * How many scripts are worth sending before the first answered: the next one then waits at the
   * database's end and starts as soon as the first is done.
   */
  readonly inFlight: number;
  /** Opens the connection (or thread) now; rejects when it cannot. */
  open(): Promise<void>;
  run(steps: ScriptStep[]): Promise<ScriptOutcome>;
}
