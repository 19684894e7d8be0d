/**
 * The source of SqliteScript's worker thread, plain JavaScript run with `eval` (a worker cannot
 * load this project's TypeScript sources where they are run through ts-jest). It opens its own
 * connection to the database file with better-sqlite3 and runs each script it is sent as one
 * `BEGIN IMMEDIATE` … `COMMIT` transaction, statements prepared once and cached, checking each
 * step's expectation (`changes`, `noRows`) and rolling back at the first that fails.
 *
 * Messages in: { id, steps: [{ sql, params, changes?, noRows? }] } (parameters already in SQLite's
 * form). Out: { id, committed: true, results } | { id, committed: false } | { id, error: { message,
 * code } }.
 */
export const SQLITE_SCRIPT_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('foreign_keys = ON');
const statements = new Map();
const prepared = (sql) => {
  let statement = statements.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
};
const runScript = (steps) => {
  const results = [];
  for (const step of steps) {
    const statement = prepared(step.sql);
    if (statement.reader) {
      const rows = statement.all(...step.params);
      if (step.noRows && rows.length > 0) return null;
      results.push(step.noRows ? null : rows);
    } else {
      const { changes } = statement.run(...step.params);
      if (step.changes !== undefined && changes !== step.changes) return null;
      results.push({ changes });
    }
  }
  return results;
};
parentPort.on('message', ({ id, steps }) => {
  try {
    db.exec('BEGIN IMMEDIATE');
    const results = runScript(steps);
    if (results === null) {
      db.exec('ROLLBACK');
      parentPort.postMessage({ id, committed: false });
      return;
    }
    db.exec('COMMIT');
    parentPort.postMessage({ id, committed: true, results });
  } catch (error) {
    if (db.inTransaction) {
      try { db.exec('ROLLBACK'); } catch {}
    }
    parentPort.postMessage({ id, error: { message: String(error && error.message), code: error && error.code } });
  }
});
`;
