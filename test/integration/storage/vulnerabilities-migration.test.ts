import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/**
 * Migrations 1764710000000 (vulnerability tables) and 1764720000000 (vulnerability changes) on
 * SQLite and (with TEST_DATABASE_URL) MariaDB: up, down, and up again.
 */
describe('migration Vulnerabilities1764710000000', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('creates the vulnerability tables and the exposure index, and undoes them', async () => {
    const names = MIGRATIONS.map((m) => m.name);
    expect(names.indexOf('VulnerabilityChanges1764720000000')).toBeGreaterThan(
      names.indexOf('Vulnerabilities1764710000000'),
    );
    const base = createDataSource(database.url);
    const dataSource = new DataSource({ ...base.options, migrations: MIGRATIONS } as typeof base.options);
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const tables = async () => {
        const runner = dataSource.createQueryRunner();
        try {
          const names = [
            'vulnerabilities',
            'vulnerability_aliases',
            'vulnerability_products',
            'vulnerability_notices',
          ];
          const present = await Promise.all(names.map((n) => runner.hasTable(n)));
          const technologies = await runner.getTable('site_technologies');
          const changes = await runner.getTable('technology_changes');
          return {
            present,
            index: technologies!.indices.some((i) => i.name === 'idx_site_technologies_slug_version'),
            vulnerabilityColumn: changes!.columns.some((c) => c.name === 'vulnerability'),
          };
        } finally {
          await runner.release();
        }
      };
      await dataSource.query(
        "INSERT INTO vulnerabilities (id, source, summary, modified_at, refs, aliases, imported_at) VALUES ('CVE-2020-11022', 'nvd', '', ?, '[]', '[]', ?)",
        ['2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000'],
      );
      const all = { present: [true, true, true, true], index: true, vulnerabilityColumn: true };
      expect(await tables()).toEqual(all);
      // Later migrations are undone first, down to 1764710000000.
      const applied = async () =>
        (
          await dataSource.query('SELECT name FROM migrations WHERE name = ?', [
            'Vulnerabilities1764710000000',
          ])
        ).length;
      while ((await applied()) > 0) await dataSource.undoLastMigration();
      expect(await tables()).toEqual({
        present: [false, false, false, false],
        index: false,
        vulnerabilityColumn: false,
      });
      await dataSource.runMigrations();
      expect(await tables()).toEqual(all);
    } finally {
      await dataSource.destroy();
    }
  });
});
