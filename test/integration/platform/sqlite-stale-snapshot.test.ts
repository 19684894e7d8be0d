import BetterSqlite3 from 'better-sqlite3';
import { Database } from '../../../src/storage/database';
import { AccountEntity } from '../../../src/storage/entities/account.entity';
import { openTestDatabase, OpenedTestDatabase } from '../jobs/job-test-kit';

/**
 * Two processes on one SQLite file (two connections here, which is what two processes are to
 * SQLite): a transaction that reads, then writes after the other committed, fails with
 * SQLITE_BUSY_SNAPSHOT, and one that starts writing while the other holds the write lock fails at
 * once with SQLITE_BUSY; Database.transaction runs it again from the start, so it reads the other's
 * write and succeeds. MariaDB has row locks instead: the file runs on SQLite only.
 */
const onSqlite = process.env.TEST_DATABASE_URL ? describe.skip : describe;

onSqlite('SQLite transactions across processes', () => {
  let first: OpenedTestDatabase;
  let second: Database;

  beforeAll(async () => {
    first = await openTestDatabase();
    second = await Database.open(first.url, { migrate: false });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  const account = (email: string) =>
    Object.assign(new AccountEntity(), {
      name: email,
      email,
      plan: 'free',
      credits: 0,
      createdAt: new Date(),
    });

  it('runs a read-then-write transaction again when another process wrote in between', async () => {
    let runs = 0;
    let seenByLastRun = -1;
    await first.db.transaction(async (m) => {
      runs++;
      seenByLastRun = await m.count(AccountEntity);
      if (runs === 1) await second.transaction((other) => other.save(account('other@example.com')));
      await m.save(account(`mine-${runs}@example.com`));
    });
    expect(runs).toBe(2);
    // The second run saw the other process's account, and only its own write was kept.
    expect(seenByLastRun).toBe(1);
    const emails = (await first.db.manager.find(AccountEntity, { order: { id: 'ASC' } })).map((a) => a.email);
    expect(emails).toEqual(['other@example.com', 'mine-2@example.com']);
  });

  it('runs it again a moment later when another process holds the write lock as it starts writing', async () => {
    // Another process in the middle of a write: it holds the lock for 150 ms.
    const other = new BetterSqlite3(first.url.slice('sqlite:'.length));
    let runs = 0;
    try {
      await first.db.transaction(async (m) => {
        runs++;
        await m.count(AccountEntity);
        if (runs === 1) {
          other.exec('BEGIN IMMEDIATE');
          setTimeout(() => other.exec('COMMIT'), 150);
        }
        // A read transaction asking to write while another holds the lock gets SQLITE_BUSY at once.
        await m.save(account(`locked-${runs}@example.com`));
      });
    } finally {
      other.close();
    }
    expect(runs).toBeGreaterThan(1);
    expect(await first.db.manager.countBy(AccountEntity, { email: `locked-${runs}@example.com` })).toBe(1);
  });
});
