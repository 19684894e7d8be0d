import { createConnection, type Connection, type ConnectionOptions, type QueryError } from 'mysql2';
import type { DataSourceOptions } from 'typeorm';
import type { Database } from './database';
import type { ScriptOutcome, ScriptParam, ScriptRunner, ScriptStep } from './script';
import { translateDriverError } from '../errors/db-error-translation';

/** The data source's options of a MySQL/MariaDB database (TypeORM's public MysqlConnectionOptions). */
type MysqlConnectionOptions = Extract<DataSourceOptions, { type: 'mysql' | 'mariadb' }>;

/** A statement the server runs for a script: a step, or one of the script's own around it. */
interface Sent {
  sql: string;
  params?: ScriptParam[];
  /** The index of the step whose result this statement gives, if any. */
  step?: number;
}

/**
 * Records that step `index` (counted from 1) stopped the script when `condition` holds, unless an
 * earlier step did: the first step that stopped is kept in the session variable @script_stop.
 */
const stopIf = (condition: string, index: number, params: ScriptParam[] = []): Sent => ({
  sql: `SET @script_stop = IF(@script_stop = 0 AND ${condition}, ${index}, @script_stop)`,
  params,
});

/**
 * The end of every script: COMMIT when no step stopped it, else nothing (the client rolls it
 * back), chosen by the server through a prepared statement so that the common path needs no
 * second round trip; then which step stopped, 0 for none.
 */
const END: Sent[] = [
  { sql: "SET @script_end = IF(@script_stop = 0, 'COMMIT', 'DO 0')" },
  { sql: 'PREPARE script_end FROM @script_end' },
  { sql: 'EXECUTE script_end' },
  { sql: 'SELECT @script_stop AS stopped' },
];

/**
 * The options of the script's own connection: the configured database as the data source has it
 * (DATABASE_URL, or host, port and credentials), read the same way as the pool's connections
 * (charset, time zone, big numbers as strings), with several statements allowed per query.
 */
export function scriptConnectionOptions(options: MysqlConnectionOptions): ConnectionOptions {
  return {
    uri: options.url,
    host: options.host,
    port: options.port,
    user: options.username,
    password: options.password,
    database: options.database,
    socketPath: options.socketPath,
    ssl: options.ssl,
    charset: options.charset,
    timezone: options.timezone,
    connectTimeout: options.connectTimeout,
    flags: options.flags,
    supportBigNumbers: options.supportBigNumbers ?? true,
    bigNumberStrings: options.bigNumberStrings ?? true,
    dateStrings: options.dateStrings as ConnectionOptions['dateStrings'],
    stringifyObjects: true,
    multipleStatements: true,
    trace: false,
  };
}

/**
 * A transaction script (ScriptRunner) sent to MySQL/MariaDB as one round trip: START TRANSACTION,
 * the steps, after each expectation a statement noting in @script_stop the first step whose
 * expectation failed, and the END above, as one text query with `multipleStatements`, on a
 * mysql2 connection of its own (multiple statements stay off on the pool every other query uses,
 * and the meter never waits for a pooled connection). Steps after the one that stopped still run
 * but are never committed; a stopped script is rolled back by a second round trip, only then.
 *
 * A round trip matters because the usage meter's requests wait for their whole batch (see
 * UsageMeter). Parameters are escaped by mysql2 (`format`), as its `query` does with values.
 */
export class MysqlScript implements ScriptRunner {
  /**
   * One: a second script would wait behind the first on this connection anyway, and its smaller
   * batches cost more than they save (each a commit of its own).
   */
  readonly inFlight = 1;
  private connection: Promise<Connection> | null = null;
  /** The last script run, settled or not: the next waits for it (see run). */
  private last: Promise<unknown> = Promise.resolve();
  /** The connection `connection` opens or opened: forgotten when it breaks. */
  private current: Connection | null = null;
  private closed = false;

  constructor(private readonly db: Database) {
    db.whenClosing(() => this.close());
  }

  /**
   * Scripts run one after the other, each once the one before it has answered and, when stopped,
   * been rolled back: START TRANSACTION would commit a transaction still open on the connection,
   * so a script sent behind a stopped one before its ROLLBACK would commit the stopped one's writes.
   */
  run(steps: ScriptStep[]): Promise<ScriptOutcome> {
    const run = this.last.then(() => this.runNow(steps));
    this.last = run.catch(() => undefined);
    return run;
  }

  private async runNow(steps: ScriptStep[]): Promise<ScriptOutcome> {
    const sent: Sent[] = [{ sql: 'START TRANSACTION' }, { sql: 'SET @script_stop = 0' }];
    steps.forEach((step, index) => {
      const params = step.params ?? [];
      if (step.noRows) sent.push(stopIf(`EXISTS (${step.sql})`, index + 1, params));
      else sent.push({ sql: step.sql, params, step: index });
      if (step.changes !== undefined) sent.push(stopIf(`ROW_COUNT() <> ${step.changes}`, index + 1));
    });
    sent.push(...END);
    let answers: unknown[];
    try {
      answers = await this.send(sent);
    } catch (error) {
      if ((error as { fatal?: boolean }).fatal) throw error;
      // The statements after the failed one did not run; the transaction is still open.
      await this.rollBack();
      throw error;
    }
    const [{ stopped }] = answers[answers.length - 1] as { stopped: number | string }[];
    if (Number(stopped) !== 0) {
      await this.rollBack();
      return { committed: false };
    }
    const results: unknown[] = steps.map(() => null);
    sent.forEach((statement, i) => {
      if (statement.step !== undefined) results[statement.step] = answers[i];
    });
    return { committed: true, results };
  }

  /** Ends the open transaction; a connection where that fails is dropped, and the transaction with it. */
  private async rollBack(): Promise<void> {
    await this.send([{ sql: 'ROLLBACK' }]).catch(() => {
      if (this.current) this.forget(this.current);
    });
  }

  /** The statements as one query: one answer per statement (rows, or a header with affectedRows). */
  private async send(statements: Sent[]): Promise<unknown[]> {
    const connection = await this.connect();
    const text = statements.map(({ sql, params }) => connection.format(sql, params ?? [])).join(';\n');
    return new Promise((resolve, reject) =>
      connection.query(text, (error: QueryError | null, results: unknown) => {
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
  private connect(): Promise<Connection> {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    if (this.connection) return this.connection;
    const connection = createConnection(
      scriptConnectionOptions(this.db.dataSource.options as MysqlConnectionOptions),
    );
    // An idle connection the server closed (wait_timeout) reports here: the next run reconnects.
    connection.on('error', () => this.forget(connection));
    const opened = new Promise<Connection>((resolve, reject) =>
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

  private forget(connection: Connection): void {
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
