import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Database } from '../../../src/storage/database';
import { MysqlScript } from '../../../src/storage/mysql-script';
import type { ScriptOutcome, ScriptRunner } from '../../../src/storage/script';
import { SqliteScript } from '../../../src/storage/sqlite-script';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';
import { distEntry } from '../../helpers/test-process';

/**
 * Transaction scripts (src/storage/script.ts), what the usage meter's batches rely on, against the real
 * database of the pass: MariaDB's one round trip of several statements (MysqlScript) or SQLite's
 * worker thread with its own connection (SqliteScript). A script commits only when every step
 * found what it expected; otherwise nothing of it remains.
 */
describe('transaction scripts', () => {
  let database: TestDatabase;
  let db: Database;
  let script: ScriptRunner;

  const scriptOf = (of: Database): ScriptRunner =>
    of.dialect === 'mysql' ? new MysqlScript(of) : SqliteScript.of(of)!;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await Database.open(database.url, {});
    await db.query(
      'CREATE TABLE script_rows (id INT PRIMARY KEY, label VARCHAR(40) NOT NULL, at VARCHAR(40))',
    );
    script = scriptOf(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const labels = async () =>
    ((await db.query('SELECT label FROM script_rows ORDER BY id')) as { label: string }[]).map(
      (row) => row.label,
    );
  const committed = (outcome: ScriptOutcome) => {
    if (!outcome.committed) throw new Error('the script did not commit');
    return outcome.results;
  };

  it('runs every step in order and gives one result per step; parameters bound as given', async () => {
    const results = committed(
      await script.run([
        {
          sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?), (?, ?)',
          params: [1, "it's", 2, 'two'],
          changes: 2,
        },
        { sql: 'SELECT id FROM script_rows WHERE id = ?', params: [99], noRows: true },
        { sql: 'SELECT label FROM script_rows WHERE id IN (?, ?) ORDER BY id', params: [1, 2] },
      ]),
    );
    expect(results).toHaveLength(3);
    expect(results[1]).toBeNull();
    expect(results[2]).toEqual([{ label: "it's" }, { label: 'two' }]);
    // The main connection sees the commit as soon as the script answered.
    expect(await labels()).toEqual(["it's", 'two']);
  });

  it('stops at a step that changed other than the rows it expected: nothing of the script remains', async () => {
    const outcome = await script.run([
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [3, 'three'] },
      { sql: 'UPDATE script_rows SET label = ? WHERE id IN (?, ?)', params: ['changed', 1, 50], changes: 2 },
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [4, 'four'] },
    ]);
    expect(outcome).toEqual({ committed: false });
    expect(await labels()).toEqual(["it's", 'two']);
  });

  it('stops at a query that found a row where none was expected', async () => {
    const outcome = await script.run([
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [5, 'five'] },
      { sql: 'SELECT id FROM script_rows WHERE id = ?', params: [2], noRows: true },
    ]);
    expect(outcome).toEqual({ committed: false });
    expect(await labels()).toEqual(["it's", 'two']);
  });

  it('rejects a failing statement (not fatal), rolls it back, and runs the next script', async () => {
    const failed = script.run([
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [6, 'six'] },
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [1, 'duplicate'] },
    ]);
    await expect(failed).rejects.toBeInstanceOf(Error);
    expect(await failed.catch((error: { fatal?: boolean }) => error.fatal ?? false)).toBe(false);
    expect(await labels()).toEqual(["it's", 'two']);
    committed(
      await script.run([{ sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [7, 'seven'] }]),
    );
    expect(await labels()).toEqual(["it's", 'two', 'seven']);
  });

  it('leaves nothing of a stopped script when the next one was sent before it answered', async () => {
    const [first, second] = await Promise.all([
      script.run([
        { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [10, 'ten'] },
        { sql: 'UPDATE script_rows SET label = label WHERE id = ?', params: [10], changes: 5 },
      ]),
      script.run([
        { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [11, 'eleven'], changes: 1 },
      ]),
    ]);
    expect(first).toEqual({ committed: false });
    expect(second.committed).toBe(true);
    expect(await labels()).toEqual(["it's", 'two', 'seven', 'eleven']);
    await db.query('DELETE FROM script_rows WHERE id = 11');
  });

  it('binds dates as the dialect stores them', async () => {
    const at = new Date('2026-11-24T08:00:00.000Z');
    committed(
      await script.run([{ sql: 'UPDATE script_rows SET at = ? WHERE id = ?', params: [at, 7], changes: 1 }]),
    );
    const [{ stored }] = (await db.query('SELECT at AS stored FROM script_rows WHERE id = 7')) as {
      stored: string;
    }[];
    expect(String(stored)).toMatch(/^2026-11-24 08:00:00/);
  });

  it('refuses to run once the database is closed', async () => {
    const other = await Database.open(database.url, { migrate: 'skip' });
    const closing = scriptOf(other);
    committed(await closing.run([{ sql: 'SELECT 1 AS one' }]));
    await other.close();
    await expect(closing.run([{ sql: 'SELECT 1 AS one' }])).rejects.toThrow(/closed/);
  });

  const onSqlite =
    process.env.TEST_DATABASE_URL && !process.env.TEST_DATABASE_URL.startsWith('sqlite:') ? it.skip : it;
  onSqlite('SQLite: the built service starts its thread from the compiled file beside it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-script-'));
    try {
      const program = `
        const { SqliteScript, sqliteScriptWorkerEntry } = require(process.argv[1]);
        const closing = [];
        const script = new SqliteScript(process.argv[2], { whenClosing: (close) => closing.push(close) });
        script
          .run([{ sql: 'CREATE TABLE t (id INT)' }, { sql: 'INSERT INTO t VALUES (1)', changes: 1 }])
          .then((outcome) => console.log(JSON.stringify({ entry: sqliteScriptWorkerEntry(), outcome })))
          .finally(() => Promise.all(closing.map((close) => close())));
      `;
      const { stdout } = await promisify(execFile)(process.execPath, [
        '-e',
        program,
        distEntry('src/storage/sqlite-script.js'),
        join(dir, 'built.sqlite'),
      ]);
      expect(JSON.parse(stdout)).toEqual({
        entry: { file: distEntry('src/storage/sqlite-script-worker.js'), execArgv: [] },
        outcome: { committed: true, results: [{ changes: 0 }, { changes: 1 }] },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const onMariaDb =
    process.env.TEST_DATABASE_URL && !process.env.TEST_DATABASE_URL.startsWith('sqlite:') ? it : it.skip;
  onMariaDb('MariaDB: opens a new connection after the server dropped its own', async () => {
    const idOf = async () => {
      const [rows] = committed(await script.run([{ sql: 'SELECT CONNECTION_ID() AS id' }])) as {
        id: number;
      }[][];
      return Number(rows[0].id);
    };
    const id = await idOf();
    await db.query(`KILL CONNECTION ${id}`);
    // The first script after the kill may still meet the dead connection (fatal); a later one opens a new one.
    let next: number | null = null;
    for (let attempt = 0; attempt < 3 && next === null; attempt++) {
      next = await idOf().catch((error: { fatal?: boolean }) => {
        expect(error.fatal).toBe(true);
        return null;
      });
    }
    expect(next).not.toBeNull();
    expect(next).not.toBe(id);
  });
});
