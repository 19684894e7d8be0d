import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/** Migration 1764710000000 on SQLite and (with TEST_DATABASE_URL) MariaDB: up, down, and up again. */
describe('migration Vulnerabilities1764710000000', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('creates the vulnerability tables and the exposure index, and undoes them', async () => {
    const index = MIGRATIONS.findIndex((m) => m.name === 'Vulnerabilities1764710000000');
    expect(index).toBe(MIGRATIONS.length - 1);
    const base = createDataSource(database.url);
    const dataSource = new DataSource({ ...base.options, migrations: MIGRATIONS } as typeof base.options);
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const tables = async () => {
        const runner = dataSource.createQueryRunner();
        try {
          const names = ['vulnerabilities', 'vulnerability_aliases', 'vulnerability_products'];
          const present = await Promise.all(names.map((n) => runner.hasTable(n)));
          const technologies = await runner.getTable('site_technologies');
          return {
            present,
            index: technologies!.indices.some((i) => i.name === 'idx_site_technologies_slug_version'),
          };
        } finally {
          await runner.release();
        }
      };
      await dataSource.query(
        "INSERT INTO vulnerabilities (id, source, summary, modified_at, refs, aliases, imported_at) VALUES ('CVE-2020-11022', 'nvd', '', ?, '[]', '[]', ?)",
        ['2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'],
      );
      expect(await tables()).toEqual({ present: [true, true, true], index: true });
      await dataSource.undoLastMigration();
      expect(await tables()).toEqual({ present: [false, false, false], index: false });
      await dataSource.runMigrations();
      expect(await tables()).toEqual({ present: [true, true, true], index: true });
    } finally {
      await dataSource.destroy();
    }
  });
});
