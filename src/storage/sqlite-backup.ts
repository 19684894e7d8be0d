import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { StartupError } from './migrator';
import { mysqlConnectionOf } from '../../ormconfig';
import { sqliteFileOf } from './open-failure';

export interface SqliteBackupResult {
  from: string;
  to: string;
  bytes: number;
  pages: number;
  /** SQLite's `PRAGMA quick_check` of the copy: "ok". */
  check: string;
}

/**
 * A consistent copy of the live SQLite database, taken with SQLite's online backup API while the
 * service and workers go on writing. A copy of the file alone can be torn: recent commits live in
 * the -wal file until a checkpoint, and a page copied mid-write is neither before nor after.
 *
 * The backup copies every page in one step: within a step SQLite reads one snapshot (WAL lets the
 * writers go on meanwhile), whereas a backup in several steps starts again whenever another
 * connection writes between them, and under steady writes might never end. The copy is written
 * beside the destination and renamed into place once SQLite's quick_check passed, so a failed
 * backup leaves no file that looks complete. An existing destination is refused.
 */
export async function backupSqliteDatabase(databaseUrl: string, to: string): Promise<SqliteBackupResult> {
  const from = sqliteFileOf(databaseUrl);
  if (from === null) throw new StartupError('DATABASE_URL: sqlite::memory: has nothing to back up', 2);
  if (!existsSync(from)) throw new StartupError(`DATABASE_URL: there is no SQLite database at ${from}`, 2);
  const target = resolve(to);
  if (existsSync(target)) throw new StartupError(`--to ${target} exists already: choose a new file`, 2);
  if (!existsSync(dirname(target)))
    throw new StartupError(`--to ${target}: the directory ${dirname(target)} does not exist`, 2);
  const partial = join(dirname(target), `.${basename(target)}.partial-${process.pid}`);
  const source = new BetterSqlite3(from, { fileMustExist: true, timeout: 10_000 });
  try {
    const { totalPages } = await source.backup(partial, { progress: () => 0x7fffffff });
    const check = quickCheck(partial);
    if (check !== 'ok') throw new Error(`the copy failed SQLite's quick_check: ${check}`);
    renameSync(partial, target);
    return { from, to: target, bytes: statSync(target).size, pages: totalPages, check };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    source.close();
  }
}

function quickCheck(file: string): string {
  const copy = new BetterSqlite3(file, { fileMustExist: true });
  try {
    return (copy.pragma('quick_check', { simple: true }) as string) ?? 'no answer';
  } finally {
    copy.close();
  }
}

/**
 * What to run instead on MySQL/MariaDB: mariadb-dump in one consistent transaction (InnoDB), the
 * password asked for (never on the command line).
 */
export function mariadbDumpCommand(databaseUrl: string): string {
  const { url, socketPath } = mysqlConnectionOf(databaseUrl);
  const parsed = new URL(url);
  const server = socketPath
    ? `--socket=${socketPath}`
    : `--host=${parsed.hostname} --port=${parsed.port || '3306'}`;
  const user = decodeURIComponent(parsed.username || 'root');
  const database = decodeURIComponent(parsed.pathname.slice(1));
  return (
    `mariadb-dump --single-transaction --routines --triggers --hex-blob --default-character-set=utf8mb4 ` +
    `${server} --user=${user} --password ${database} > backup.sql`
  );
}
