import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/**
 * Migrations 1764710000000 (the vulnerability tables), 1764720000000 (vulnerability changes) and
 * 1764730000000 (the exposure index made live-aware) on SQLite and (with TEST_DATABASE_URL)
 * MariaDB: up, down, and up again.
 */
describe('migrations Vulnerabilities1764710000000, VulnerabilityChanges1764720000000 and ExposureLiveIndex1764730000000', () => {
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
    expect(names.indexOf('ExposureLiveIndex1764730000000')).toBeGreaterThan(
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
          const indexes = technologies!.indices.map((i) => i.name);
          return {
            present,
            index: indexes.includes('idx_site_technologies_live_version')
              ? 'live'
              : indexes.includes('idx_site_technologies_slug_version')
                ? 'slug'
                : false,
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
      const all = { present: [true, true, true, true], index: 'live', vulnerabilityColumn: true };
      expect(await tables()).toEqual(all);
      // Later migrations are undone first, down to each of these.
      const undoTo = async (name: string) => {
        const applied = async () =>
          (await dataSource.query('SELECT name FROM migrations WHERE name = ?', [name])).length;
        while ((await applied()) > 0) await dataSource.undoLastMigration();
      };
      await undoTo('ExposureLiveIndex1764730000000');
      expect(await tables()).toEqual({ ...all, index: 'slug' });
      await undoTo('Vulnerabilities1764710000000');
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
