import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/**
 * Migration 1764680000000 on SQLite and (with TEST_DATABASE_URL) MariaDB: monitors and
 * monitor_domains are created and take rows, down removes both (with their rows), up runs again.
 */
describe('migration Monitors1764680000000', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  beforeAll(async () => {
    database = await createTestDatabase();
    const base = createDataSource(database.url);
    dataSource = new DataSource({ ...base.options, migrations: MIGRATIONS } as typeof base.options);
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const tables = async () => {
    const runner = dataSource.createQueryRunner();
    try {
      return [await runner.hasTable('monitors'), await runner.hasTable('monitor_domains')];
    } finally {
      await runner.release();
    }
  };

  const MONITORS = 'Monitors1764680000000';

  it('creates the tables, undoes them, and creates them again', async () => {
    expect(MIGRATIONS.map((m) => m.name)).toContain(MONITORS);
    await dataSource.runMigrations();
    expect(await tables()).toEqual([true, true]);
    const now = dataSource.options.type === 'better-sqlite3' ? '2026-11-27 00:00:00.000' : new Date();
    await dataSource.query(
      "INSERT INTO accounts (name, email, plan, credits, is_demo, created_at) VALUES ('m', 'm@example.com', 'large', 0, ?, ?)",
      [false, now],
    );
    const [{ id: accountId }] = await dataSource.query(
      "SELECT id FROM accounts WHERE email = 'm@example.com'",
    );
    await dataSource.query(
      'INSERT INTO monitors (account_id, callback_url, technologies, categories, kinds, has_domains, recrawl_days, created_at) ' +
        "VALUES (?, 'https://hooks.example.net/', '[]', '[\"cms\"]', '[]', ?, 7, ?)",
      [accountId, true, now],
    );
    const [{ id }] = await dataSource.query('SELECT id FROM monitors');
    await dataSource.query(
      'INSERT INTO monitor_domains (monitor_id, hostname, domain, account_id, recrawl_days, next_crawl_at) ' +
        "VALUES (?, 'example.com', 'example.com', ?, 7, ?)",
      [id, accountId, now],
    );
    // Later migrations are undone first, down to this one.
    const applied = async () =>
      (await dataSource.query('SELECT name FROM migrations WHERE name = ?', [MONITORS])).length;
    while ((await applied()) > 0) await dataSource.undoLastMigration();
    expect(await tables()).toEqual([false, false]);
    await dataSource.runMigrations();
    expect(await tables()).toEqual([true, true]);
  });
});
