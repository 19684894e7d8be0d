import type { Database } from './database';
import { MysqlScript } from './mysql-script';
import type { ScriptRunner } from './script';
import { SqliteScript } from './sqlite-script';

/**
 * Where a batch writer sends its transaction scripts whole (the usage meter's; see ScriptRunner),
 * if anywhere: one multi-statement round trip on MySQL/MariaDB when `mysqlOneTrip`
 * (METER_ONE_TRIP), a thread of its own on SQLite when `sqliteThread` (SQLITE_METER_THREAD).
 */
export function scriptRunnerOf(
  db: Database,
  options: { mysqlOneTrip: boolean; sqliteThread: boolean },
): ScriptRunner | null {
  if (db.dialect === 'mysql') return options.mysqlOneTrip ? new MysqlScript(db) : null;
  return options.sqliteThread ? SqliteScript.of(db) : null;
}
