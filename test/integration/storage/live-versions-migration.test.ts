import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

const NAME = 'TechnologyLiveVersions1764760000000';

/**
 * Migration 1764760000000 (the versions each technology runs on a site now) on SQLite and (with
 * TEST_DATABASE_URL) MariaDB: up backfills one row per live technology from its best version, down
 * removes the table, up again; a site removed takes its rows along.
 */
describe(`migration ${NAME}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('backfills the live technologies’ versions, and undoes it', async () => {
    const names = MIGRATIONS.map((m) => m.name);
    expect(names.indexOf(NAME)).toBeGreaterThan(names.indexOf('TrendTotals1764740000000'));
    const base = createDataSource(database.url);
    const dataSource = new DataSource({ ...base.options, migrations: MIGRATIONS } as typeof base.options);
    await dataSource.initialize();
    try {
      await dataSource.runMigrations();
      const undo = async () => {
        while ((await dataSource.query('SELECT name FROM migrations WHERE name = ?', [NAME])).length > 0)
          await dataSource.undoLastMigration();
      };
      await undo();
      const when = '2026-11-27 00:00:00.000';
      await dataSource.query(
        'INSERT INTO sites (hostname, domain, tld, is_subdomain, languages, hits, language_count, sets_mask, ' +
          "first_seen_at, last_analyzed_at) VALUES ('shop.example', 'shop.example', '.example', 0, '[]', 0, 0, 0, ?, ?)",
        [when, when],
      );
      const [{ id }] = await dataSource.query("SELECT id FROM sites WHERE hostname = 'shop.example'");
      for (const [slug, version, live, evidence] of [
        ['jquery', '3.6.0', 1, '["/","/blog"]'],
        ['lodash', '', 1, '["/"]'],
        ['wordpress', '6.4.2', 0, '["/"]'],
      ] as const)
        await dataSource.query(
          'INSERT INTO site_technologies (site_id, slug, name, version, version_key, versions, confidence, ' +
            "root_path, first_seen_at, confirmed_at, live, evidence_paths) VALUES (?, ?, ?, ?, '', '[]', 100, 1, ?, ?, ?, ?)",
          [id, slug, slug, version, when, when, live, evidence],
        );
      await dataSource.runMigrations();
      const rows = await dataSource.query(
        'SELECT slug, version, evidence_paths FROM site_technology_live_versions ORDER BY slug',
      );
      expect(rows).toEqual([
        { slug: 'jquery', version: '3.6.0', evidence_paths: '["/","/blog"]' },
        { slug: 'lodash', version: '', evidence_paths: '["/"]' },
      ]);
      const runner = dataSource.createQueryRunner();
      try {
        const table = await runner.getTable('site_technology_live_versions');
        expect(table!.indices.map((i) => i.name)).toContain('idx_site_technology_live_versions_version');
        await undo();
        expect(await runner.hasTable('site_technology_live_versions')).toBe(false);
        await dataSource.runMigrations();
        expect(await runner.hasTable('site_technology_live_versions')).toBe(true);
        // A site removed takes its rows along.
        const rowsOfSite = async () =>
          Number(
            (
              await dataSource.query(
                'SELECT COUNT(*) AS n FROM site_technology_live_versions WHERE site_id = ?',
                [id],
              )
            )[0].n,
          );
        expect(await rowsOfSite()).toBe(2);
        await dataSource.query('DELETE FROM sites WHERE id = ?', [id]);
        expect(await rowsOfSite()).toBe(0);
      } finally {
        await runner.release();
      }
    } finally {
      await dataSource.destroy();
    }
  });
});
