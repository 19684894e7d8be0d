import { Database, isDeadlock } from './database';
import { translateDriverError } from '../errors/db-error-translation';

type Param = string | number | null | Date;

/** Statements of one transaction (or of none): placeholders are `?` on both databases. */
export interface SqlSession {
  /** A write: the number of rows it changed. */
  run(sql: string, params?: Param[]): Promise<number>;
  all<T>(sql: string, params?: Param[]): Promise<T[]>;
}

/**
 * Prepared statements on the drivers themselves, for the few statements every request runs (key
 * lookup, stored-site reads, the metering batch), because TypeORM's query building and result
 * mapping were a large share of a stored lookup's CPU (docs/performance.md). Everything else keeps
 * using TypeORM.
 *
 * SQLite: better-sqlite3's one connection, statements prepared once and cached; a transaction here
 * takes its turn in Database's transaction queue (so it never runs inside a TypeORM transaction on
 * the same connection). MySQL/MariaDB: mysql2's pool, `execute` (server-side prepared statements
 * cached per connection); a transaction holds one pooled connection.
 */
export interface RawSql extends SqlSession {
  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T>;
}

export function rawSqlOf(db: Database): RawSql {
  return db.dialect === 'sqlite' ? new SqliteRawSql(db) : new MysqlRawSql(db);
}

interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}

interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  inTransaction: boolean;
}

/** better-sqlite3 binds Dates as TypeORM stores them: UTC text without the T and Z. */
export const sqliteParams = (params: Param[]): unknown[] =>
  params.map((p) => (p instanceof Date ? p.toISOString().replace('T', ' ').replace('Z', '') : p));

class SqliteRawSql implements RawSql {
  private readonly statements = new Map<string, SqliteStatement>();

  constructor(private readonly db: Database) {}

  private get connection(): SqliteConnection {
    return (this.db.dataSource.driver as unknown as { databaseConnection: SqliteConnection })
      .databaseConnection;
  }

  private statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.connection.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  run(sql: string, params: Param[] = []): Promise<number> {
    try {
      return Promise.resolve(this.statement(sql).run(...sqliteParams(params)).changes);
    } catch (error) {
      return Promise.reject(translateDriverError(error));
    }
  }

  all<T>(sql: string, params: Param[] = []): Promise<T[]> {
    try {
      return Promise.resolve(this.statement(sql).all(...sqliteParams(params)) as T[]);
    } catch (error) {
      return Promise.reject(translateDriverError(error));
    }
  }

  transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    return this.db.exclusive(async () => {
      const connection = this.connection;
      connection.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this);
        connection.exec('COMMIT');
        return result;
      } catch (error) {
        if (connection.inTransaction) connection.exec('ROLLBACK');
        throw error;
      }
    });
  }
}

interface MysqlConnection {
  execute(sql: string, params: unknown[], done: (error: Error | null, result: unknown) => void): void;
  query(sql: string, done: (error: Error | null) => void): void;
  release(): void;
}

interface MysqlPool extends Omit<MysqlConnection, 'release'> {
  getConnection(done: (error: Error | null, connection: MysqlConnection) => void): void;
}

class MysqlRawSql implements RawSql {
  constructor(private readonly db: Database) {}

  private get pool(): MysqlPool {
    return (this.db.dataSource.driver as unknown as { pool: MysqlPool }).pool;
  }

  run(sql: string, params: Param[] = []): Promise<number> {
    return mysqlRun(this.pool, sql, params);
  }

  all<T>(sql: string, params: Param[] = []): Promise<T[]> {
    return mysqlAll<T>(this.pool, sql, params);
  }

  async transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const connection = await new Promise<MysqlConnection>((resolve, reject) =>
        this.pool.getConnection((error, c) => (error ? reject(translateDriverError(error)) : resolve(c))),
      );
      const session: SqlSession = {
        run: (sql, params = []) => mysqlRun(connection, sql, params),
        all: <R>(sql: string, params: Param[] = []) => mysqlAll<R>(connection, sql, params),
      };
      try {
        await mysqlCommand(connection, 'START TRANSACTION');
        const result = await work(session);
        await mysqlCommand(connection, 'COMMIT');
        return result;
      } catch (error) {
        await mysqlCommand(connection, 'ROLLBACK').catch(() => undefined);
        if (attempt < 4 && isDeadlock(error)) continue;
        throw error;
      } finally {
        connection.release();
      }
    }
  }
}

function mysqlRun(target: Omit<MysqlConnection, 'release'>, sql: string, params: Param[]): Promise<number> {
  return new Promise((resolve, reject) =>
    target.execute(sql, params, (error, result) =>
      error
        ? reject(translateDriverError(error))
        : resolve((result as { affectedRows: number }).affectedRows),
    ),
  );
}

function mysqlAll<T>(target: Omit<MysqlConnection, 'release'>, sql: string, params: Param[]): Promise<T[]> {
  return new Promise((resolve, reject) =>
    target.execute(sql, params, (error, rows) =>
      error ? reject(translateDriverError(error)) : resolve(rows as T[]),
    ),
  );
}

function mysqlCommand(connection: MysqlConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) =>
    connection.query(sql, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * An entity from a raw row of its table (`SELECT *` or any subset of its columns), converted the
 * way TypeORM converts what it reads (dates, booleans, JSON), without its query builder.
 */
export function hydrate<T extends object>(
  db: Database,
  entity: new () => T,
  row: Record<string, unknown>,
): T {
  const metadata = db.dataSource.getMetadata(entity);
  const target = new entity() as Record<string, unknown>;
  for (const column of metadata.columns) {
    if (!(column.databaseName in row)) continue;
    target[column.propertyName] = db.dataSource.driver.prepareHydratedValue(row[column.databaseName], column);
  }
  return target as T;
}
