import { Database } from '../../../src/db/database';
import { MysqlScript } from '../../../src/db/mysql-script';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/**
 * MysqlScript: several statements in one round trip, on a connection of its own. What the usage
 * meter's one-trip batches rely on, checked against the real server: the server stops at the first
 * failing statement (so a COMMIT after a failed guard never runs), a guard fails only when its
 * condition is false, and a connection the server dropped is replaced.
 */
const onMariaDb =
  process.env.TEST_DATABASE_URL && !process.env.TEST_DATABASE_URL.startsWith('sqlite:')
    ? describe
    : describe.skip;

const GUARD = (condition: string) => ({
  sql: `SET @test_guard = IF(${condition}, 0, (SELECT 1 UNION ALL SELECT 2))`,
});

onMariaDb('MysqlScript (one round trip of several statements)', () => {
  let database: TestDatabase;
  let db: Database;
  let script: MysqlScript;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await Database.open(database.url, {});
    await db.query('CREATE TABLE script_rows (id INT PRIMARY KEY, label VARCHAR(40) NOT NULL)');
    script = new MysqlScript(db);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  const labels = async () =>
    ((await db.query('SELECT label FROM script_rows ORDER BY id')) as { label: string }[]).map(
      (row) => row.label,
    );

  it('runs every statement in order and gives one result per statement, parameters escaped', async () => {
    const results = await script.run([
      { sql: 'START TRANSACTION' },
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?), (?, ?)', params: [1, "it's", 2, 'two'] },
      GUARD('ROW_COUNT() = 2'),
      { sql: 'SELECT label FROM script_rows WHERE id IN (?, ?) ORDER BY id', params: [1, 2] },
      { sql: 'COMMIT' },
    ]);
    expect(results).toHaveLength(5);
    expect((results[1] as { affectedRows: number }).affectedRows).toBe(2);
    expect(results[3]).toEqual([{ label: "it's" }, { label: 'two' }]);
    expect(await labels()).toEqual(["it's", 'two']);
  });

  it('stops at a failed guard: the statements after it, COMMIT included, do not run', async () => {
    const failed = script.run([
      { sql: 'START TRANSACTION' },
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [3, 'three'] },
      GUARD('ROW_COUNT() = 2'),
      { sql: 'INSERT INTO script_rows (id, label) VALUES (?, ?)', params: [4, 'four'] },
      { sql: 'COMMIT' },
    ]);
    await expect(failed).rejects.toMatchObject({ code: 'ER_SUBQUERY_NO_1_ROW' });
    await expect(failed.catch((error: { fatal?: boolean }) => error.fatal)).resolves.toBeFalsy();
    // The transaction is still open on the script's connection, with row 3 in it, until rolled back.
    await script.run([{ sql: 'ROLLBACK' }]);
    expect(await labels()).toEqual(["it's", 'two']);
  });

  it('reconnects after the server dropped its connection', async () => {
    const [[{ id }]] = (await script.run([{ sql: 'SELECT CONNECTION_ID() AS id' }])) as [{ id: number }][];
    await db.query(`KILL CONNECTION ${Number(id)}`);
    // The first run after the kill may still meet the dead connection (fatal); a later one opens a new one.
    let answer: unknown[] | null = null;
    for (let attempt = 0; attempt < 3 && !answer; attempt++) {
      answer = await script
        .run([{ sql: 'SELECT CONNECTION_ID() AS id' }])
        .catch((error: { fatal?: boolean }) => {
          expect(error.fatal).toBe(true);
          return null;
        });
    }
    const [[{ id: next }]] = answer as [{ id: number }][];
    expect(Number(next)).not.toBe(Number(id));
  });

  it('refuses to run once the database is closed', async () => {
    const other = await Database.open(database.url, { migrate: 'skip' });
    const closing = new MysqlScript(other);
    await closing.run([{ sql: 'SELECT 1' }]);
    await other.close();
    await expect(closing.run([{ sql: 'SELECT 1' }])).rejects.toThrow(/closed/);
  });
});
