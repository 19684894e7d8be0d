import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/** Sites read per batch while backfilling versions from the monthly history. */
const BATCH = 500;

/**
 * The technology timeline and the change log (issue 32 §1, §2):
 *
 * - site_technologies.live, removed_at, evidence_paths: whether the technology is on the site now,
 *   when it was last removed, and the paths of the pages whose latest reading found it. Existing
 *   rows are live; their evidence is '/' when they were seen on the front page, else '*' (some page
 *   of a crawl, which only a crawl can contradict).
 * - site_technology_versions: per site, technology and version, the first and last sighting.
 *   Backfilled from the monthly history (a month's versions count from the month's first day to
 *   its last, clamped to the technology's first and last sighting) and from the current version.
 * - technology_changes: the change log, with a growing id. Backfilled with one 'added' change per
 *   stored technology at its first sighting (fingerprint version unknown: '').
 */
export class TechnologyTimeline1764650000000 implements MigrationInterface {
  name = 'TechnologyTimeline1764650000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.addColumns('site_technologies', [
      new TableColumn({ name: 'live', type: 'boolean', default: true }),
      new TableColumn({ name: 'removed_at', type: 'datetime', precision: 3, isNullable: true }),
      new TableColumn({ name: 'evidence_paths', type: 'varchar', length: '1000', default: "'[]'" }),
    ]);
    await q.query(
      `UPDATE site_technologies SET evidence_paths = CASE WHEN root_path = ${mysql ? 'TRUE' : '1'} ` +
        `THEN '["/"]' ELSE '["*"]' END`,
    );
    const siteForeignKey = {
      columnNames: ['site_id'],
      referencedTableName: 'sites',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    await q.createTable(
      new Table({
        name: 'site_technology_versions',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          { name: 'slug', type: 'varchar', length: '120', isPrimary: true },
          { name: 'version', type: 'varchar', length: '60', isPrimary: true },
          { name: 'first_seen_at', type: 'datetime', precision: 3 },
          { name: 'last_seen_at', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [siteForeignKey],
      }),
    );
    await q.createTable(
      new Table({
        name: 'technology_changes',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'site_id', type: 'int' },
          { name: 'slug', type: 'varchar', length: '120' },
          { name: 'kind', type: 'varchar', length: '10' },
          { name: 'from_version', type: 'varchar', length: '60', default: "''" },
          { name: 'to_version', type: 'varchar', length: '60', default: "''" },
          { name: 'fingerprints_version', type: 'varchar', length: '64', default: "''" },
          { name: 'at', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [siteForeignKey],
        indices: [
          new TableIndex({ name: 'idx_technology_changes_site', columnNames: ['site_id', 'id'] }),
          new TableIndex({ name: 'idx_technology_changes_slug', columnNames: ['slug', 'id'] }),
          new TableIndex({ name: 'idx_technology_changes_at', columnNames: ['at'] }),
        ],
      }),
    );
    await this.backfillVersions(q);
    await q.query(
      'INSERT INTO technology_changes (site_id, slug, kind, from_version, to_version, fingerprints_version, at) ' +
        "SELECT site_id, slug, 'added', '', '', '', first_seen_at FROM site_technologies ORDER BY first_seen_at, id",
    );
  }

  /** Versions of the monthly history, then the current versions with their exact times. */
  private async backfillVersions(q: QueryRunner): Promise<void> {
    const [{ top }] = (await q.query('SELECT MAX(site_id) AS top FROM site_month_technologies')) as {
      top: number | string | null;
    }[];
    for (let from = 0; top !== null && from < Number(top); from += BATCH) {
      const rows = (await q.query(
        'SELECT site_id, slug, month, versions FROM site_month_technologies WHERE site_id > ? AND site_id <= ?',
        [from, from + BATCH],
      )) as { site_id: number; slug: string; month: string; versions: string }[];
      const spans = new Map<
        string,
        { siteId: number; slug: string; version: string; first: string; last: string }
      >();
      for (const row of rows) {
        for (const version of listOf(row.versions)) {
          const v = version.slice(0, 60);
          const key = `${row.site_id} ${row.slug} ${v}`;
          const span = spans.get(key);
          if (!span)
            spans.set(key, {
              siteId: row.site_id,
              slug: row.slug,
              version: v,
              first: row.month,
              last: row.month,
            });
          else {
            if (row.month < span.first) span.first = row.month;
            if (row.month > span.last) span.last = row.month;
          }
        }
      }
      const values = [...spans.values()];
      for (let i = 0; i < values.length; i += 200) {
        const part = values.slice(i, i + 200);
        await q.query(
          'INSERT INTO site_technology_versions (site_id, slug, version, first_seen_at, last_seen_at) VALUES ' +
            part.map(() => '(?, ?, ?, ?, ?)').join(', '),
          part.flatMap((s) => [s.siteId, s.slug, s.version, `${s.first}-01 00:00:00.000`, monthEnd(s.last)]),
        );
      }
    }
    // Clamp the month-wide spans to the technology's own first and last sighting.
    await q.query(
      'UPDATE site_technology_versions SET first_seen_at = (SELECT t.first_seen_at FROM site_technologies t ' +
        'WHERE t.site_id = site_technology_versions.site_id AND t.slug = site_technology_versions.slug) ' +
        'WHERE first_seen_at < (SELECT t.first_seen_at FROM site_technologies t ' +
        'WHERE t.site_id = site_technology_versions.site_id AND t.slug = site_technology_versions.slug)',
    );
    await q.query(
      'UPDATE site_technology_versions SET last_seen_at = (SELECT t.confirmed_at FROM site_technologies t ' +
        'WHERE t.site_id = site_technology_versions.site_id AND t.slug = site_technology_versions.slug) ' +
        'WHERE last_seen_at > (SELECT t.confirmed_at FROM site_technologies t ' +
        'WHERE t.site_id = site_technology_versions.site_id AND t.slug = site_technology_versions.slug)',
    );
    // The current version was seen at the last sighting; one without month rows starts at the first.
    await q.query(
      'UPDATE site_technology_versions SET last_seen_at = (SELECT t.confirmed_at FROM site_technologies t ' +
        'WHERE t.site_id = site_technology_versions.site_id AND t.slug = site_technology_versions.slug) ' +
        'WHERE EXISTS (SELECT 1 FROM site_technologies t WHERE t.site_id = site_technology_versions.site_id ' +
        'AND t.slug = site_technology_versions.slug AND t.version = site_technology_versions.version)',
    );
    await q.query(
      'INSERT INTO site_technology_versions (site_id, slug, version, first_seen_at, last_seen_at) ' +
        "SELECT t.site_id, t.slug, t.version, t.first_seen_at, t.confirmed_at FROM site_technologies t WHERE t.version <> '' " +
        'AND NOT EXISTS (SELECT 1 FROM site_technology_versions v WHERE v.site_id = t.site_id AND v.slug = t.slug ' +
        'AND v.version = t.version)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('technology_changes');
    await q.dropTable('site_technology_versions');
    await q.dropColumn('site_technologies', 'evidence_paths');
    await q.dropColumn('site_technologies', 'removed_at');
    await q.dropColumn('site_technologies', 'live');
  }
}

/** A JSON list column's strings (malformed JSON: none). */
function listOf(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
  } catch {
    return [];
  }
}

/** The last millisecond of a month (YYYY-MM), as both databases read a datetime literal. */
function monthEnd(month: string): string {
  const [year, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${month}-${String(last).padStart(2, '0')} 23:59:59.999`;
}
