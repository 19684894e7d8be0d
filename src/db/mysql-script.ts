import type { Database } from './database';
import { translateDriverError } from '../errors/db-error-translation';

type Param = string | number | null | Date;

export interface ScriptStatement {
  sql: string;
  params?: Param[];
}

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
 * Several statements sent to MySQL/MariaDB as one round trip: one text query with
 * `multipleStatements`, on a connection of its own, opened on first use from the same options as
 * TypeORM's pool. The server runs the statements in order and stops at the first error, so a
 * script that ends in COMMIT commits only when every statement before it succeeded.
 *
 * Why a round trip matters here: on a busy machine each one waits for the API process and the
 * database server to get a core, and the usage meter's requests wait for its whole batch (see
 * UsageMeter). Why a connection of its own: `multipleStatements` stays off on the pool every other
 * query uses, and the meter never waits for a pooled connection. Parameters are escaped by mysql2
 * (`format`), as its `query` does with values.
 */
export class MysqlScript {
  private connection: Promise<ScriptConnection> | null = null;
  /** The connection `connection` opens or opened: forgotten when it breaks. */
  private current: ScriptConnection | null = null;
  private closed = false;

  constructor(private readonly db: Database) {
    db.whenClosing(() => this.close());
  }

  /**
   * Runs the statements as one query and resolves with one result per statement (rows for a
   * SELECT, a header with affectedRows for a write). Rejects with the driver's error: `fatal` set
   * when the connection broke (then whether a COMMIT in the script ran is unknown), not set when a
   * statement failed (the ones after it did not run; a transaction it began is still open).
   */
  async run(statements: ScriptStatement[]): Promise<unknown[]> {
    const connection = await this.open();
    const text = statements.map(({ sql, params = [] }) => connection.format(sql, params)).join(';\n');
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

  /** Opens the connection on first use (and again after it broke). Rejects when it cannot. */
  open(): Promise<ScriptConnection> {
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
