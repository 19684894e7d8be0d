import type { Database } from './database';
import { MysqlScript } from './mysql-script';
import type { ScriptRunner } from './script';
import { SqliteScript } from './sqlite-script';

/**
 * Where a batch writer sends its transaction scripts whole (the usage meter's; see ScriptRunner),
 * if anywhere: one multi-statement round trip on MySQL/MariaDB unless `mysqlOneTrip` is off
 * (METER_ONE_TRIP=false, for a server or proxy that refuses multi-statements); a thread of its own
 * on an SQLite file (an in-memory database has none: it cannot be shared with another connection).
 */
export function scriptRunnerOf(db: Database, options: { mysqlOneTrip: boolean }): ScriptRunner | null {
  if (db.dialect === 'mysql') return options.mysqlOneTrip ? new MysqlScript(db) : null;
  return SqliteScript.of(db);
}
