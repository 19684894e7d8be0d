import { parentPort, workerData } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';
import type { ScriptStep } from './script';

/**
 * The entry file of SqliteScript's worker thread (started by path, never imported): its own
 * connection to the database file, on which each script it is sent runs as one `BEGIN IMMEDIATE`
 * … `COMMIT` transaction, statements prepared once and cached, each step's expectation (`changes`,
 * `noRows`) checked and the transaction rolled back at the first that fails.
 */

/** What SqliteScript sends: the steps' parameters already in SQLite's form. */
export interface WorkerScript {
  id: number;
  steps: (Omit<ScriptStep, 'params'> & { params: unknown[] })[];
}

/** What the thread answers for each script, in the order sent. */
export type WorkerAnswer =
  | { id: number; committed: true; results: unknown[] }
  | { id: number; committed: false }
  | { id: number; error: { message: string; code?: string } };

/** What SqliteScript gives the thread when it starts it. */
export interface WorkerOptions {
  file: string;
  busyTimeoutMs: number;
}

function serve(port: NonNullable<typeof parentPort>, options: WorkerOptions): void {
  const db = new Sqlite(options.file);
  db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  const statements = new Map<string, Sqlite.Statement>();
  const prepared = (sql: string): Sqlite.Statement => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  /** One result per step, or null where a step's expectation failed. */
  const runScript = (steps: WorkerScript['steps']): unknown[] | null => {
    const results: unknown[] = [];
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
  const answer = (message: WorkerAnswer) => port.postMessage(message);

  port.on('message', ({ id, steps }: WorkerScript) => {
    try {
      db.exec('BEGIN IMMEDIATE');
      const results = runScript(steps);
      if (results === null) {
        db.exec('ROLLBACK');
        answer({ id, committed: false });
        return;
      }
      db.exec('COMMIT');
      answer({ id, committed: true, results });
    } catch (error) {
      if (db.inTransaction) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // The script's own error is the one to report.
        }
      }
      const { message, code } = error as { message?: unknown; code?: unknown };
      answer({
        id,
        error: { message: String(message), code: typeof code === 'string' ? code : undefined },
      });
    }
  });
}

if (!parentPort) throw new Error('sqlite-script-worker runs as a worker thread (started by SqliteScript)');
serve(parentPort, workerData as WorkerOptions);
