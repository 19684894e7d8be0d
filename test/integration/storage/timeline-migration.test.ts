import { DataSource } from 'typeorm';
import { createDataSource } from '../../../ormconfig';
import { SiteEntity } from '../../../src/storage/entities';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

/** A datetime as either database returns it (a Date from mysql2, UTC text from SQLite), in ISO form. */
const iso = (value: Date | string) =>
  value instanceof Date ? value.toISOString() : new Date(`${value.replace(' ', 'T')}Z`).toISOString();

/**
 * Migration 1764650000000 on SQLite and (with TEST_DATABASE_URL) MariaDB: the timeline and the
 * change log are backfilled from site_technologies and site_month_technologies (versions month-wide,
 * clamped to the technology's own sightings; evidence '/' or '*'; one 'added' change each); down
 * removes them and up runs again.
 */
describe('migration TechnologyTimeline1764650000000', () => {
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

  it('backfills versions, evidence and the first changes from the stored history', async () => {
    const index = MIGRATIONS.findIndex((m) => m.name === 'TechnologyTimeline1764650000000');
    expect(index).toBeGreaterThan(0);
    const before = await open(MIGRATIONS.slice(0, index));
    try {
      await before.runMigrations();
      const sqlite = before.options.type === 'better-sqlite3';
      const at = (text: string) => (sqlite ? text.replace('T', ' ').replace('Z', '') : new Date(text));
      await before.manager.insert(SiteEntity, {
        hostname: 'old.test',
        domain: 'old.test',
        tld: '.test',
        isSubdomain: false,
        language: null,
        languages: '[]',
        country: null,
        title: null,
        hits: 3,
        firstSeenAt: new Date('2026-03-10T08:00:00.000Z'),
        lastAnalyzedAt: new Date('2026-06-05T09:00:00.000Z'),
      });
      const [{ id }] = await before.query("SELECT id FROM sites WHERE hostname = 'old.test'");
      const technology = (slug: string, version: string, versions: string[], root: boolean) =>
        before.query(
          'INSERT INTO site_technologies (site_id, slug, name, version, versions, confidence, root_path, first_seen_at, confirmed_at) ' +
            'VALUES (?, ?, ?, ?, ?, 100, ?, ?, ?)',
          [
            id,
            slug,
            slug,
            version,
            JSON.stringify(versions),
            root,
            at('2026-03-10T08:00:00.000Z'),
            at('2026-06-05T09:00:00.000Z'),
          ],
        );
      await technology('nginx', '1.25.3', ['1.25.3'], true);
      await technology('jquery', '3.7.1', ['3.6.0', '3.7.1'], false);
      const month = (slug: string, m: string, versions: string[]) =>
        before.query(
          'INSERT INTO site_month_technologies (site_id, month, slug, name, categories, versions, hits, confidence) ' +
            "VALUES (?, ?, ?, ?, '[]', ?, 1, 100)",
          [id, m, slug, slug, JSON.stringify(versions)],
        );
      await month('nginx', '2026-03', ['1.25.3']);
      await month('jquery', '2026-03', ['3.6.0']);
      await month('jquery', '2026-05', ['3.6.0', '3.7.1']);
      await month('jquery', '2026-06', ['3.7.1']);
    } finally {
      await before.destroy();
    }

    const after = await open(MIGRATIONS);
    try {
      const applied = await after.runMigrations();
      expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.slice(index).map((m) => m.name));
      const rows = await after.query(
        'SELECT slug, live, removed_at, evidence_paths FROM site_technologies ORDER BY slug',
      );
      expect(
        rows.map((r: Record<string, unknown>) => [r.slug, Boolean(r.live), r.removed_at, r.evidence_paths]),
      ).toEqual([
        ['jquery', true, null, '["*"]'],
        ['nginx', true, null, '["/"]'],
      ]);
      const versions = await after.query(
        'SELECT slug, version, first_seen_at, last_seen_at FROM site_technology_versions ORDER BY slug, version',
      );
      expect(
        versions.map((v: { slug: string; version: string; first_seen_at: Date; last_seen_at: Date }) => [
          v.slug,
          v.version,
          iso(v.first_seen_at),
          iso(v.last_seen_at),
        ]),
      ).toEqual([
        // Seen in March (from the technology's first sighting) and May.
        ['jquery', '3.6.0', '2026-03-10T08:00:00.000Z', '2026-05-31T23:59:59.999Z'],
        // Seen from May on, and the current version at the last sighting.
        ['jquery', '3.7.1', '2026-05-01T00:00:00.000Z', '2026-06-05T09:00:00.000Z'],
        ['nginx', '1.25.3', '2026-03-10T08:00:00.000Z', '2026-06-05T09:00:00.000Z'],
      ]);
      const changes = await after.query(
        'SELECT id, slug, kind, from_version, to_version, fingerprints_version, at FROM technology_changes ORDER BY id',
      );
      expect(
        changes.map((c: { slug: string; kind: string; at: Date }) => [c.slug, c.kind, iso(c.at)]),
      ).toEqual([
        ['nginx', 'added', '2026-03-10T08:00:00.000Z'],
        ['jquery', 'added', '2026-03-10T08:00:00.000Z'],
      ]);
      expect(changes[0]).toMatchObject({ from_version: '', to_version: '', fingerprints_version: '' });

      // Undone with the migrations that came after it.
      const timelineApplied = async () =>
        (await after.query('SELECT name FROM migrations WHERE name = ?', ['TechnologyTimeline1764650000000']))
          .length;
      while ((await timelineApplied()) > 0) await after.undoLastMigration();
      await expect(after.query('SELECT COUNT(*) FROM technology_changes')).rejects.toThrow();
      await expect(after.query('SELECT live FROM site_technologies')).rejects.toThrow();
      await after.runMigrations();
      expect(Number((await after.query('SELECT COUNT(*) AS n FROM site_technology_versions'))[0].n)).toBe(3);
    } finally {
      await after.destroy();
    }
  });
});
