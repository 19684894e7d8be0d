import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { SiteEntity } from '../../../src/storage/entities';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/**
 * Migration 1764510000000 on SQLite and (with TEST_DATABASE_URL) MariaDB: rows stored before it
 * read '' as their fingerprint version (and '[]' as the month's versions); page_samples exists;
 * down removes both and up runs again.
 */
describe('migration FingerprintProvenance1764510000000', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const open = async (migrations: typeof MIGRATIONS): Promise<DataSource> => {
    const base = createDataSource(database.url);
    const dataSource = new DataSource({ ...base.options, migrations } as typeof base.options);
    await dataSource.initialize();
    return dataSource;
  };

  it('keeps older rows with an empty version, and goes down and up again', async () => {
    const index = MIGRATIONS.findIndex((m) => m.name === 'FingerprintProvenance1764510000000');
    expect(index).toBeGreaterThan(0);
    const before = await open(MIGRATIONS.slice(0, index));
    try {
      await before.runMigrations();
      const now = new Date();
      await before.manager.insert(SiteEntity, {
        hostname: 'old.test',
        domain: 'old.test',
        tld: 'test',
        isSubdomain: false,
        language: null,
        languages: '[]',
        country: null,
        title: null,
        hits: 1,
        firstSeenAt: now,
        lastAnalyzedAt: now,
      });
      const [{ id }] = await before.query("SELECT id FROM sites WHERE hostname = 'old.test'");
      const at =
        before.options.type === 'better-sqlite3' ? now.toISOString().replace('T', ' ').slice(0, 23) : now;
      await before.query(
        'INSERT INTO site_technologies (site_id, slug, name, version, versions, confidence, first_seen_at, confirmed_at) ' +
          "VALUES (?, 'nginx', 'Nginx', '', '[]', 100, ?, ?)",
        [id, at, at],
      );
      await before.query(
        'INSERT INTO site_month_technologies (site_id, month, slug, name, categories, versions, hits, confidence) ' +
          "VALUES (?, '2025-11', 'nginx', 'Nginx', '[]', '[]', 1, 100)",
        [id],
      );
    } finally {
      await before.destroy();
    }

    const after = await open(MIGRATIONS);
    try {
      const applied = await after.runMigrations();
      expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.slice(index).map((m) => m.name));
      expect(await after.query('SELECT fingerprints_version FROM site_technologies')).toEqual([
        { fingerprints_version: '' },
      ]);
      expect(
        await after.query('SELECT fingerprints_version, fingerprints_versions FROM site_month_technologies'),
      ).toEqual([{ fingerprints_version: '', fingerprints_versions: '[]' }]);
      expect(Number((await after.query('SELECT COUNT(*) AS n FROM page_samples'))[0].n)).toBe(0);

      for (let i = MIGRATIONS.length - 1; i >= index; i--) await after.undoLastMigration();
      await expect(after.query('SELECT COUNT(*) FROM page_samples')).rejects.toThrow();
      await expect(after.query('SELECT fingerprints_version FROM site_technologies')).rejects.toThrow();
      await after.runMigrations();
      expect(await after.query('SELECT fingerprints_version FROM site_technologies')).toEqual([
        { fingerprints_version: '' },
      ]);
    } finally {
      await after.destroy();
    }
  });
});
