import { DataSource, MigrationExecutor } from 'typeorm';

/**
 * A process cannot start: the message says why and what the operator should do. The entry points
 * print it and exit with `exitCode` (2 for a setting that is wrong as written, like an invalid
 * setting; 1 otherwise) instead of logging a stack trace.
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

export interface MigrateResult {
  /** Migrations this process ran (empty when another process had already run them). */
  applied: string[];
  lock: string;
}

/**
 * Runs pending migrations under a database-wide lock, so any number of API and worker processes
 * may start at the same moment on a fresh or outdated database: one migrates, the others wait for
 * the lock, then find nothing pending.
 *
 * - MySQL/MariaDB: `GET_LOCK(name, timeout)` held by one dedicated connection for the whole run
 *   (a named lock is server-wide, so the name carries the database's name; a crashed holder's
 *   session ends and the server frees the lock).
 * - SQLite: `BEGIN IMMEDIATE` takes the file's write lock; every migration runs inside that one
 *   transaction, which commits (or rolls back) them together.
 *
 * A process that waits longer than `timeoutSeconds` throws a StartupError naming the lock.
 */
export async function migrateUnderLock(
  dataSource: DataSource,
  timeoutSeconds: number,
): Promise<MigrateResult> {
  return dataSource.options.type === 'better-sqlite3'
    ? migrateSqlite(dataSource, timeoutSeconds)
    : migrateMysql(dataSource, timeoutSeconds);
}

/** What has run and what is pending, read without taking the lock. */
export async function migrationStatus(dataSource: DataSource): Promise<MigrationStatus> {
  const runner = dataSource.createQueryRunner();
  try {
    const executor = new MigrationExecutor(dataSource, runner);
    if (!(await runner.hasTable('migrations'))) {
      // A fresh database: everything is pending (and reading must not create the table unlocked).
      return { applied: [], pending: dataSource.migrations.map((m) => m.name ?? m.constructor.name) };
    }
    const executed = await executor.getExecutedMigrations();
    const pending = await executor.getPendingMigrations();
    // TypeORM lists executed migrations newest first; report them in the order they ran.
    const applied = [...executed].sort((x, y) => x.timestamp - y.timestamp).map((m) => m.name);
    return { applied, pending: pending.map((m) => m.name) };
  } finally {
    if (dataSource.options.type !== 'better-sqlite3') await runner.release();
  }
}

const SQLITE_LOCK = 'the SQLite write lock (BEGIN IMMEDIATE)';

async function migrateSqlite(dataSource: DataSource, timeoutSeconds: number): Promise<MigrateResult> {
  // better-sqlite3 gives TypeORM one connection and one shared query runner.
  const runner = dataSource.createQueryRunner();
  const deadline = Date.now() + timeoutSeconds * 1000;
  // better-sqlite3 waits synchronously for the busy timeout; wait in slices so the deadline holds.
  for (;;) {
    const slice = Math.max(1, Math.min(1000, deadline - Date.now()));
    await runner.query(`PRAGMA busy_timeout = ${slice}`);
    try {
      await runner.query('BEGIN IMMEDIATE');
      break;
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      if (Date.now() >= deadline) {
        await runner.query('PRAGMA busy_timeout = 10000');
        throw lockTimeout(SQLITE_LOCK, timeoutSeconds);
      }
    }
  }
  await runner.query('PRAGMA busy_timeout = 10000');
  try {
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'none';
    const applied = await executor.executePendingMigrations();
    await runner.query('COMMIT');
    return { applied: applied.map((m) => m.name), lock: SQLITE_LOCK };
  } catch (error) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function migrateMysql(dataSource: DataSource, timeoutSeconds: number): Promise<MigrateResult> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [{ name: database }] = (await runner.query('SELECT DATABASE() AS name')) as { name: string }[];
    const lock = mysqlLockName(database ?? '');
    const [{ got }] = (await runner.query('SELECT GET_LOCK(?, ?) AS got', [lock, timeoutSeconds])) as {
      got: number | string | null;
    }[];
    if (Number(got) !== 1) throw lockTimeout(`the MySQL/MariaDB named lock "${lock}"`, timeoutSeconds);
    try {
      // Each migration in its own transaction on pooled connections; the lock stays with `runner`.
      const executor = new MigrationExecutor(dataSource);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return { applied: applied.map((m) => m.name), lock: `MySQL/MariaDB named lock "${lock}"` };
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [lock]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

/** Named locks are server-wide and at most 64 characters: one per database. */
export function mysqlLockName(database: string): string {
  return `tis_migrate:${database}`.slice(0, 64);
}

function lockTimeout(lock: string, timeoutSeconds: number): StartupError {
  return new StartupError(
    `Timed out after ${timeoutSeconds} s waiting for ${lock}: another process is migrating the ` +
      'database (or holds the lock). Raise MIGRATION_LOCK_TIMEOUT_SECONDS or run ' +
      '`npm run admin -- db:migrate` once it is free.',
  );
}

function isSqliteBusy(error: unknown): boolean {
  const e = error as { code?: string; driverError?: { code?: string }; message?: string };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'SQLITE_BUSY' || /database is locked/.test(e?.message ?? '');
}
