import { resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from './database';

/** What the probe found: the database answers and takes writes, answers but refuses them, or is gone. */
export type StorageState = 'ok' | 'unwritable' | 'unreachable';

export interface StorageProbe {
  state: StorageState;
  /** The driver's error when the state is not ok (for the log: it may name users and paths). */
  error?: unknown;
}

/**
 * A write that changes nothing: it matches no row, but the database must still open a write
 * transaction for it (SQLite takes the write lock, MySQL checks privileges and read_only), so it
 * fails exactly where any write would. It runs inside a transaction that is rolled back.
 * The migrations table exists wherever the service runs.
 */
const NO_OP_WRITE = 'UPDATE migrations SET name = name WHERE 1 = 0';

const ROLLBACK = Symbol('rollback');

/**
 * Whether the service can do its work with its database: a read (`SELECT 1`), then the no-op
 * write on the service's own connection (a SQLite file opened when it was read-only stays
 * read-only, whatever its mode now) and, for SQLite, on a new connection to the file (a file made
 * read-only after the service opened it still takes the open connection's writes, but not those
 * of the metering thread, of worker processes or of the service after a restart).
 */
export async function probeStorage(db: Database): Promise<StorageProbe> {
  try {
    await db.query('SELECT 1');
  } catch (error) {
    return { state: 'unreachable', error };
  }
  try {
    await db
      .transaction(async (m) => {
        await m.query(NO_OP_WRITE);
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
    const file = db.dialect === 'sqlite' ? String(db.dataSource.options.database) : ':memory:';
    if (file !== ':memory:') probeSqliteFile(resolve(file));
    return { state: 'ok' };
  } catch (error) {
    return { state: 'unwritable', error };
  }
}

/**
 * The no-op write on a connection of its own, closed again. It runs on the event loop, so it never
 * waits for the write lock (timeout 0): SQLITE_BUSY means another connection is writing, and SQLite
 * refuses a read-only connection (SQLITE_READONLY) before it asks for the lock, so busy is writable.
 */
function probeSqliteFile(file: string): void {
  const connection = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
  try {
    connection.exec('BEGIN');
    try {
      connection.prepare(NO_OP_WRITE).run();
    } catch (error) {
      if (!String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw error;
    } finally {
      connection.exec('ROLLBACK');
    }
  } finally {
    connection.close();
  }
}
