import type { Database } from './database';
import {
  MYSQL_SCRIPT_STOP,
  type ScriptOutcome,
  type ScriptParam,
  type ScriptRunner,
  type ScriptStep,
} from './script';
import { translateDriverError } from '../errors/db-error-translation';

/** The statements the server runs for one step: the step, then a guard for its expectation. */
interface Sent {
  sql: string;
  params: ScriptParam[];
  /** The index of the step whose result this statement gives, if any. */
  step?: number;
}

/** A statement that fails unless `condition` holds (see MYSQL_SCRIPT_STOP). */
const guard = (condition: string, params: ScriptParam[] = []): Sent => ({
  sql: `SET @script_guard = IF(${condition}, 0, ${MYSQL_SCRIPT_STOP})`,
  params,
});

/** The error of MYSQL_SCRIPT_STOP: a guard's, or a self-stopping write's. */
const isStop = (error: unknown): boolean =>
  (error as { code?: string } | undefined)?.code === 'ER_SUBQUERY_NO_1_ROW';

interface DriverError extends Error {
  fatal?: boolean;
}

interface ScriptConnection {
  connect(done: (error: DriverError | null) => void): void;
  query(sql: string, done: (error: DriverError | null, results: unknown) => void): void;
  format(sql: string, params: unknown[]): string;
  on(event: 'error', listener: (error: DriverError) => void): void;
  end(done: (error?: unknown) => void): void;
  destroy(): void;
}

interface MysqlDriverInternals {
  mysql: { createConnection(options: Record<string, unknown>): ScriptConnection };
  options: Record<string, unknown>;
  createConnectionOptions(options: unknown, credentials: unknown): Record<string, unknown>;
}

/** The pool's options that a single connection does not take (mysql2 warns about each). */
const POOL_ONLY = [
  'connectionLimit',
  'acquireTimeout',
  'waitForConnections',
  'queueLimit',
  'maxIdle',
  'idleTimeout',
];

/**
 * A transaction script (ScriptRunner) sent to MySQL/MariaDB as one round trip: START TRANSACTION,
 * the steps, each followed by a guard statement for its expectation (or stopping the script
 * themselves: MYSQL_SCRIPT_STOP), and COMMIT, as one text query
 * with `multipleStatements`, on a connection of its own opened on first use from the same options
 * as TypeORM's pool. The server runs the statements in order and stops at the first error, so a
 * failed guard stops the script before its COMMIT; it is then rolled back (a second round trip,
 * only then).
 *
 * Why a round trip matters: on a busy machine each one waits for the API process and the database
 * server to get a core, and the usage meter's requests wait for their whole batch (see UsageMeter).
 * Why a connection of its own: `multipleStatements` stays off on the pool every other query uses,
 * and the meter never waits for a pooled connection. Parameters are escaped by mysql2 (`format`),
 * as its `query` does with values.
 */
export class MysqlScript implements ScriptRunner {
  /**
   * One: a second script would wait behind the first on this connection anyway, and in bench runs
   * the smaller batches it made cost more than they saved (each a commit of its own).
   */
  readonly inFlight = 1;
  private connection: Promise<ScriptConnection> | null = null;
  /** The last script run, settled or not: the next waits for it (see run). */
  private last: Promise<unknown> = Promise.resolve();
  /** The connection `connection` opens or opened: forgotten when it breaks. */
  private current: ScriptConnection | null = null;
  private closed = false;

  constructor(private readonly db: Database) {
    db.whenClosing(() => this.close());
  }

  /**
   * Scripts run one after the other, each once the one before it has answered and, when stopped,
   * been rolled back: START TRANSACTION would commit a transaction still open on the connection,
   * so a script sent behind a stopped one before its ROLLBACK would commit the stopped one's
   * writes. (Each script used to start with a ROLLBACK of its own instead: one statement of eleven
   * in a usual metering batch, each statement a parse and a packet sent back.)
   */
  run(steps: ScriptStep[]): Promise<ScriptOutcome> {
    const run = this.last.then(() => this.runNow(steps));
    this.last = run.catch(() => undefined);
    return run;
  }

  private async runNow(steps: ScriptStep[]): Promise<ScriptOutcome> {
    const sent: Sent[] = [{ sql: 'START TRANSACTION', params: [] }];
    steps.forEach((step, index) => {
      const params = step.params ?? [];
      if (step.noRows) sent.push(guard(`NOT EXISTS (${step.sql})`, params));
      else sent.push({ sql: step.sql, params, step: index });
      if (step.changes !== undefined) sent.push(guard(`ROW_COUNT() = ${step.changes}`));
    });
    sent.push({ sql: 'COMMIT', params: [] });
    let answers: unknown[];
    try {
      answers = await this.send(sent);
    } catch (error) {
      if ((error as DriverError).fatal) throw error;
      // The statements after the failed one did not run; the transaction is still open. A
      // connection where it could not be rolled back is dropped, and the transaction with it.
      await this.send([{ sql: 'ROLLBACK', params: [] }]).catch(() => {
        if (this.current) this.forget(this.current);
      });
      if (isStop(error)) return { committed: false };
      throw error;
    }
    const results: unknown[] = steps.map(() => null);
    sent.forEach((statement, i) => {
      if (statement.step !== undefined) results[statement.step] = answers[i];
    });
    return { committed: true, results };
  }

  /** The statements as one query: one answer per statement (rows, or a header with affectedRows). */
  private async send(statements: Sent[]): Promise<unknown[]> {
    const connection = await this.connect();
    const text = statements.map(({ sql, params }) => connection.format(sql, params)).join(';\n');
    return new Promise((resolve, reject) =>
      connection.query(text, (error, results) => {
        if (!error) {
          // One statement gives its own result, several an array of them.
          resolve(statements.length === 1 ? [results] : (results as unknown[]));
          return;
        }
        if (error.fatal) this.forget(connection);
        reject(translateDriverError(error));
      }),
    );
  }

  async open(): Promise<void> {
    await this.connect();
  }

  /** Opens the connection on first use (and again after it broke). Rejects when it cannot. */
  private connect(): Promise<ScriptConnection> {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    if (this.connection) return this.connection;
    const driver = this.db.dataSource.driver as unknown as MysqlDriverInternals;
    const options: Record<string, unknown> = {
      ...driver.createConnectionOptions(driver.options, driver.options),
      multipleStatements: true,
      trace: false,
    };
    for (const key of POOL_ONLY) delete options[key];
    const connection = driver.mysql.createConnection(options);
    // An idle connection the server closed (wait_timeout) reports here: the next run reconnects.
    connection.on('error', () => this.forget(connection));
    const opened = new Promise<ScriptConnection>((resolve, reject) =>
      connection.connect((error) => {
        if (!error) return resolve(connection);
        this.forget(connection);
        reject(translateDriverError(error));
      }),
    );
    this.current = connection;
    this.connection = opened;
    return opened;
  }

  private forget(connection: ScriptConnection): void {
    if (this.current === connection) {
      this.current = null;
      this.connection = null;
    }
    connection.destroy();
  }

  private async close(): Promise<void> {
    this.closed = true;
    const pending = this.connection;
    this.connection = null;
    this.current = null;
    const connection = await pending?.catch(() => null);
    if (connection) await new Promise<void>((resolve) => connection.end(() => resolve()));
  }
}
