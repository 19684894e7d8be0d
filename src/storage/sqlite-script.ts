import { existsSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database } from './database';
import { sqliteParams } from './raw-sql';
import type { ScriptOutcome, ScriptRunner, ScriptStep } from './script';
import type { WorkerAnswer, WorkerOptions, WorkerScript } from './sqlite-script-worker';

/**
 * How to start the worker's file (sqlite-script-worker): the compiled JavaScript beside this
 * module where it is itself compiled (dist/), else its TypeScript source compiled on load by
 * @swc-node/register where this module is run as TypeScript (jest), since a worker thread loads
 * files through Node's own loader, not the one that loaded its parent.
 */
export function sqliteScriptWorkerEntry(): { file: string; execArgv: string[] } {
  const compiled = join(__dirname, 'sqlite-script-worker.js');
  if (existsSync(compiled)) return { file: compiled, execArgv: [] };
  const source = join(__dirname, 'sqlite-script-worker.ts');
  if (extname(__filename) === '.ts' && existsSync(source)) {
    try {
      return { file: source, execArgv: ['--require', require.resolve('@swc-node/register')] };
    } catch {
      throw new Error(
        `The SQLite script thread needs ${compiled} (run \`npm run build\`) or @swc-node/register to run ${source}`,
      );
    }
  }
  throw new Error(`The SQLite script thread's file ${compiled} is missing: run \`npm run build\``);
}

interface Waiting {
  resolve: (outcome: ScriptOutcome) => void;
  reject: (error: unknown) => void;
}

/** A script's error from the worker, with SQLite's code (SQLITE_BUSY …) where it had one. */
class SqliteScriptError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly fatal = false,
  ) {
    super(message);
  }
}

/**
 * A transaction script (ScriptRunner) run on a worker thread with its own connection to the SQLite
 * file (see sqlite-script-worker.ts). better-sqlite3 runs every statement, and a commit's writes
 * of its pages to the WAL (no fsync: WAL with synchronous=NORMAL, better-sqlite3's default), on
 * the thread that calls it: on the main thread that is time no request is served. The usage
 * meter's batches run here instead, on the other core, while the event loop goes on; WAL lets
 * the main connection read meanwhile and see each batch once committed. A write of the main
 * connection that meets the worker's transaction waits for it (busy_timeout), as a second
 * process's would.
 *
 * Only for a database file: an in-memory database cannot be shared with another connection.
 */
export class SqliteScript implements ScriptRunner {
  /** Two: the thread starts the next script as soon as it committed one, not when the event loop has read its answer. */
  readonly inFlight = 2;
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;
  /** The last script sent, settled or not: close waits for it. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    db: Database,
    private readonly busyTimeoutMs = 10_000,
  ) {
    db.whenClosing(() => this.close());
  }

  /** The script runner for this database, or null where it has no file. */
  static of(db: Database): SqliteScript | null {
    const file = String(db.dataSource.options.database ?? '');
    return file && file !== ':memory:' ? new SqliteScript(resolve(file), db) : null;
  }

  open(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The database is closed'));
    if (this.ready) return this.ready;
    let entry: { file: string; execArgv: string[] };
    try {
      entry = sqliteScriptWorkerEntry();
    } catch (error) {
      return Promise.reject(error);
    }
    const workerData: WorkerOptions = { file: this.file, busyTimeoutMs: this.busyTimeoutMs };
    const worker = new Worker(entry.file, { execArgv: entry.execArgv, workerData });
    this.worker = worker;
    // Like a database connection, the thread does not keep the process alive by itself.
    worker.unref();
    worker.on('message', (answer: WorkerAnswer) => this.answer(answer));
    // A worker that died takes its scripts with it: whether the one it ran committed is unknown.
    const died = (error: unknown) => this.lose(worker, error);
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the SQLite script thread exited (code ${code})`)));
    this.ready = new Promise((resolveReady, reject) => {
      worker.once('online', () => resolveReady());
      worker.once('error', reject);
    });
    this.ready.catch(() => undefined);
    return this.ready;
  }

  async run(steps: ScriptStep[]): Promise<ScriptOutcome> {
    await this.open();
    const worker = this.worker!;
    const id = this.nextId++;
    const message: WorkerScript = {
      id,
      steps: steps.map((step) => ({ ...step, params: sqliteParams(step.params ?? []) })),
    };
    const outcome = new Promise<ScriptOutcome>((resolveRun, reject) => {
      this.waiting.set(id, { resolve: resolveRun, reject });
      worker.postMessage(message);
    });
    this.last = outcome.catch(() => undefined);
    return outcome;
  }

  private answer(answer: WorkerAnswer): void {
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.waiting.delete(answer.id);
    if ('error' in answer) waiting.reject(new SqliteScriptError(answer.error.message, answer.error.code));
    else
      waiting.resolve(answer.committed ? { committed: true, results: answer.results } : { committed: false });
  }

  private lose(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.ready = null;
    const message = error instanceof Error ? error.message : String(error);
    for (const waiting of this.waiting.values())
      waiting.reject(new SqliteScriptError(message, undefined, true));
    this.waiting.clear();
  }

  private async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    // Scripts already sent finish first: the worker answers them in order.
    await this.last;
    this.worker = null;
    this.ready = null;
    await worker.terminate();
  }
}
