import { existsSync } from 'node:fs';
import { DataSource, EntityManager } from 'typeorm';
import { createDataSource, Dialect, dialectOf } from '../../ormconfig';
import { translateDriverError } from '../errors/db-error-translation';
import { logger } from '../platform/logger';
import { migrateUnderLock, migrationStatus, StartupError } from './migrator';
import { databaseOpenError, sqliteFileOf } from './open-failure';

export interface OpenOptions {
  /**
   * true (the default): run pending migrations under the database-wide migration lock.
   * false: run none, but refuse to start on a schema with pending migrations (MIGRATE_ON_START=false,
   * migrations being a separate deployment step). 'skip': neither (the admin db:* commands).
   */
  migrate?: boolean | 'skip';
  /** How long to wait for another process's migration lock (MIGRATION_LOCK_TIMEOUT_SECONDS). */
  lockTimeoutSeconds?: number;
  /** SQLite's page cache in MB (SQLITE_CACHE_MB): its default of 2 MB made lookups read from disk at 100,000 sites. */
  sqliteCacheMb?: number;
}

/**
 * The service's handle on storage: the DataSource plus the one way to run a transaction.
 *
 * better-sqlite3 gives TypeORM a single connection, so two overlapping transactions would nest on
 * it; on SQLite every transaction therefore waits its turn behind an in-process queue (SQLite
 * serialises writers anyway). MySQL transactions run concurrently and are retried on deadlock.
 * Every write of the service goes through `transaction`.
 */
export class Database {
  readonly dialect: Dialect;
  /** The SQLite file this open created (it did not exist before), or null. */
  createdFile: string | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Connections (or threads) a part opened beside TypeORM's (MysqlScript, SqliteScript): closed with it. */
  private readonly closers: (() => Promise<void>)[] = [];

  constructor(readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
  }

  static async open(databaseUrl: string, options: OpenOptions = {}): Promise<Database> {
    const sqliteFile = sqliteFileOf(databaseUrl);
    const existed = sqliteFile === null || existsSync(sqliteFile);
    let dataSource: DataSource;
    try {
      dataSource = createDataSource(databaseUrl);
      await dataSource.initialize();
    } catch (error) {
      throw databaseOpenError(databaseUrl, error);
    }
    const db = new Database(dataSource);
    db.createdFile = existed ? null : sqliteFile;
    // A mistyped path would otherwise start on a new, empty database without a word.
    if (sqliteFile !== null)
      logger.info(
        { path: sqliteFile, created: !existed },
        existed ? 'SQLite database opened' : 'SQLite database created: the file did not exist',
      );
    try {
      if (db.dialect === 'sqlite' && options.sqliteCacheMb)
        await dataSource.query(`PRAGMA cache_size = -${Math.round(options.sqliteCacheMb * 1024)}`);
      if (options.migrate === false) {
        const { pending } = await migrationStatus(dataSource);
        if (pending.length > 0) {
          throw new StartupError(
            `The database schema has ${pending.length} pending migration(s) (${pending.join(', ')}) and ` +
              'MIGRATE_ON_START=false: run `npm run admin -- db:migrate` first.',
          );
        }
      } else if (options.migrate !== 'skip') {
        const { applied, lock } = await migrateUnderLock(dataSource, options.lockTimeoutSeconds ?? 300);
        if (applied.length > 0) logger.info({ applied, lock }, 'database migrated');
        else logger.debug({ lock }, 'database schema up to date');
      }
    } catch (error) {
      await dataSource.destroy().catch(() => undefined);
      throw error;
    }
    return db;
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  async transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      const run = this.queue.then(() => this.runAgainOn(SQLITE_CONTENTION_RETRY, work));
      this.queue = run.catch(() => undefined);
      return run;
    }
    return this.runAgainOn(DEADLOCK_RETRY, work);
  }

  /**
   * Runs a transaction, and again (up to the policy's attempts in all) when it failed in a way
   * that only means "another transaction came first": a deadlock on MySQL, contention with
   * another process on SQLite (see isSqliteContention).
   */
  private async runAgainOn<T>(policy: RetryPolicy, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        return await this.runTranslated(work);
      } catch (error) {
        if (attempt >= policy.attempts || !policy.retryable(error, performance.now() - started)) throw error;
        const pause = policy.pauseMs?.(attempt) ?? 0;
        if (pause > 0) await sleep(pause);
      }
    }
  }

  /**
   * On SQLite, runs `work` in the transaction queue's turn (nothing else of TypeORM's is in a
   * transaction meanwhile): the raw prepared-statement transactions of src/storage/raw-sql.ts use it.
   * On MySQL it just runs `work`.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.dialect !== 'sqlite') return work();
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Runs a query outside a transaction; on SQLite it still queues behind open transactions. */
  async query<T = unknown>(sql: string, parameters: unknown[] = []): Promise<T> {
    if (this.dialect === 'sqlite') return this.transaction((m) => m.query(sql, parameters) as Promise<T>);
    try {
      return (await this.dataSource.query(sql, parameters)) as T;
    } catch (error) {
      throw translateDriverError(error);
    }
  }

  /**
   * The row lock a read inside a transaction takes on MySQL/MariaDB, for TypeORM's `lock` option
   * or `setLock`; none on SQLite, whose transactions run one at a time (see `transaction`) and
   * whose driver has no row locks.
   */
  rowLock<M extends 'pessimistic_read' | 'pessimistic_write'>(mode: M): M | undefined {
    return this.dialect === 'mysql' ? mode : undefined;
  }

  /** `close` runs this first: for a connection a part opened beside TypeORM's pool. */
  whenClosing(close: () => Promise<void>): void {
    this.closers.push(close);
  }

  async close(): Promise<void> {
    await this.queue;
    await Promise.all(this.closers.splice(0).map((close) => close().catch(() => undefined)));
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  private async runTranslated<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      throw translateDriverError(error);
    }
  }
}

/** A deadlock or lock-wait timeout on MySQL/MariaDB: the transaction may simply be run again. */
export function isDeadlock(error: unknown): boolean {
  const failed = error as { driverError?: { code?: string }; code?: string } | undefined;
  const code = failed?.driverError?.code ?? failed?.code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * SQLite in WAL mode with several processes on one file. TypeORM begins transactions DEFERRED, so
 * a transaction that read first and then writes fails without waiting: with SQLITE_BUSY_SNAPSHOT
 * when another process committed in between (its snapshot is no longer the newest), and with
 * SQLITE_BUSY when another process holds the write lock at that moment (SQLite does not call the
 * busy handler for a read transaction asking to write, as that could deadlock). Running it again
 * from the start, a moment later, reads the new data, as a MySQL deadlock victim does. A
 * SQLITE_BUSY that came after the whole busy_timeout wait is not retried.
 */
export function isSqliteContention(error: unknown, elapsedMs: number): boolean {
  const failed = error as { driverError?: { code?: string }; code?: string } | undefined;
  const code = failed?.driverError?.code ?? failed?.code;
  return code === 'SQLITE_BUSY_SNAPSHOT' || (code === 'SQLITE_BUSY' && elapsedMs < 1000);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** When a failed transaction runs again: which errors, how many attempts in all, how long between. */
interface RetryPolicy {
  retryable: (error: unknown, elapsedMs: number) => boolean;
  attempts: number;
  pauseMs?: (attempt: number) => number;
}

/** A deadlock victim runs again at once: the winner has committed or rolled back by then. */
const DEADLOCK_RETRY: RetryPolicy = { retryable: isDeadlock, attempts: 4 };

/** The other SQLite writer may still be at work: a moment's pause first (10, 20, 40 … ms, at most 320). */
const SQLITE_CONTENTION_RETRY: RetryPolicy = {
  retryable: isSqliteContention,
  attempts: 8,
  pauseMs: (attempt) => Math.min(320, 10 * 2 ** (attempt - 1)),
};

export { dialectOf };

/**
 * A Date as a raw-SQL parameter. TypeORM converts entity columns itself, but raw queries must pass
 * what the driver binds: SQLite stores TypeORM's UTC text form, mysql2 binds Date objects (timezone Z).
 */
export function dbDate(db: Database, date: Date): Date | string {
  return db.dialect === 'sqlite' ? date.toISOString().replace('T', ' ').replace('Z', '') : date;
}

/** How a process opens the database, from its settings (MIGRATE_ON_START, MIGRATION_LOCK_TIMEOUT_SECONDS). */
export function openOptions(config: {
  MIGRATE_ON_START: boolean;
  MIGRATION_LOCK_TIMEOUT_SECONDS: number;
  SQLITE_CACHE_MB?: number;
}): OpenOptions {
  return {
    migrate: config.MIGRATE_ON_START,
    lockTimeoutSeconds: config.MIGRATION_LOCK_TIMEOUT_SECONDS,
    sqliteCacheMb: config.SQLITE_CACHE_MB,
  };
}

/**
 * How a separate worker process (`npm run worker`) opens the database: with WORKER_SQLITE_CACHE_MB
 * as its SQLite page cache. A worker's big reads are scans (list calculations, file writing) that
 * the operating system's page cache serves as well, and SQLite's sorter may use as much memory
 * again as the page cache; the API's larger cache is for its many small lookups, and kept a
 * worker's memory high from its start-up scans onwards (docs/performance.md).
 */
export function workerOpenOptions(config: {
  MIGRATE_ON_START: boolean;
  MIGRATION_LOCK_TIMEOUT_SECONDS: number;
  WORKER_SQLITE_CACHE_MB: number;
}): OpenOptions {
  return { ...openOptions(config), sqliteCacheMb: config.WORKER_SQLITE_CACHE_MB };
}
