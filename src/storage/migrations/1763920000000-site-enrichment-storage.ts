import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

const BATCH = 500;

/**
 * What the index keeps beyond technologies, so stored lookups answer every field set without
 * fetching and lead lists filter with set-based SQL:
 * - sites: traffic rank (imported or observed), industry, company size, language count, the field
 *   sets that hold a value (a bit mask), when the site was enriched and last tried;
 * - site_technologies.version_key: a sortable version for version filters, in the list index
 *   (slug, confirmed_at, version_key, site_id), which replaces the (slug, confirmed_at) one;
 * - site_enrichments: the enriched record (JSON) of each site;
 * - site_languages and site_keywords: one row per value, keyed value-first for filters.
 * Existing rows are backfilled (version keys, languages).
 */
export class SiteEnrichmentStorage1763920000000 implements MigrationInterface {
  name = 'SiteEnrichmentStorage1763920000000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    const time = (name: string) =>
      new TableColumn({ name, type: 'datetime', precision: 3, isNullable: true });
    await q.addColumns('sites', [
      new TableColumn({ name: 'traffic_rank', type: 'int', isNullable: true }),
      new TableColumn({ name: 'rank_source', type: 'varchar', length: '10', isNullable: true }),
      new TableColumn({ name: 'industry', type: 'varchar', length: '100', isNullable: true }),
      new TableColumn({ name: 'company_size', type: 'varchar', length: '20', isNullable: true }),
      new TableColumn({ name: 'language_count', type: 'int', default: 0 }),
      new TableColumn({ name: 'sets_mask', type: 'int', default: 0 }),
      time('enriched_at'),
      time('crawl_attempted_at'),
    ]);
    await q.createIndices('sites', [
      new TableIndex({ name: 'idx_sites_traffic_rank', columnNames: ['traffic_rank'] }),
      new TableIndex({ name: 'idx_sites_industry', columnNames: ['industry'] }),
      new TableIndex({ name: 'idx_sites_company_size', columnNames: ['company_size'] }),
    ]);

    await q.addColumn(
      'site_technologies',
      new TableColumn({ name: 'version_key', type: 'varchar', length: '80', default: "''" }),
    );
    await q.createIndex(
      'site_technologies',
      new TableIndex({
        name: 'idx_site_technologies_list',
        columnNames: ['slug', 'confirmed_at', 'version_key', 'site_id'],
      }),
    );
    await q.dropIndex('site_technologies', 'idx_site_technologies_slug');

    const siteForeignKey = {
      columnNames: ['site_id'],
      referencedTableName: 'sites',
      referencedColumnNames: ['id'],
      onDelete: 'CASCADE',
    };
    await q.createTable(
      new Table({
        name: 'site_enrichments',
        columns: [
          { name: 'site_id', type: 'int', isPrimary: true },
          // The record is bounded by the enrichment library's caps, but can pass MySQL TEXT's 64 KB.
          { name: 'data', type: mysql ? 'mediumtext' : 'text' },
          { name: 'updated_at', type: 'datetime', precision: 3 },
        ],
        foreignKeys: [siteForeignKey],
      }),
    );
    for (const [table, column, length] of [
      ['site_languages', 'language', '20'],
      ['site_keywords', 'keyword', '60'],
    ] as const) {
      await q.createTable(
        new Table({
          name: table,
          columns: [
            { name: column, type: 'varchar', length, isPrimary: true },
            { name: 'site_id', type: 'int', isPrimary: true },
          ],
          indices: [new TableIndex({ name: `idx_${table}_site`, columnNames: ['site_id'] })],
          foreignKeys: [siteForeignKey],
        }),
      );
    }

    await backfillVersionKeys(q);
    await backfillLanguages(q);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('site_keywords');
    await q.dropTable('site_languages');
    await q.dropTable('site_enrichments');
    await q.createIndex(
      'site_technologies',
      new TableIndex({ name: 'idx_site_technologies_slug', columnNames: ['slug', 'confirmed_at'] }),
    );
    await q.dropIndex('site_technologies', 'idx_site_technologies_list');
    await q.dropColumn('site_technologies', 'version_key');
    for (const index of ['idx_sites_traffic_rank', 'idx_sites_industry', 'idx_sites_company_size'])
      await q.dropIndex('sites', index);
    for (const column of [
      'traffic_rank',
      'rank_source',
      'industry',
      'company_size',
      'language_count',
      'sets_mask',
      'enriched_at',
      'crawl_attempted_at',
    ])
      await q.dropColumn('sites', column);
  }
}

async function backfillVersionKeys(q: QueryRunner): Promise<void> {
  for (let after = 0; ;) {
    const rows = (await q.query(
      `SELECT id, version FROM site_technologies WHERE id > ? ORDER BY id LIMIT ${BATCH}`,
      [after],
    )) as { id: number; version: string }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      const key = versionKeyOf(row.version ?? '');
      if (key) await q.query('UPDATE site_technologies SET version_key = ? WHERE id = ?', [key, row.id]);
    }
    after = rows[rows.length - 1].id;
  }
}

async function backfillLanguages(q: QueryRunner): Promise<void> {
  for (let after = 0; ;) {
    const rows = (await q.query(`SELECT id, languages FROM sites WHERE id > ? ORDER BY id LIMIT ${BATCH}`, [
      after,
    ])) as { id: number; languages: string }[];
    if (rows.length === 0) return;
    for (const row of rows) {
      let languages: string[] = [];
      try {
        const parsed: unknown = JSON.parse(row.languages);
        if (Array.isArray(parsed)) languages = parsed.filter((v): v is string => typeof v === 'string');
      } catch {
        languages = [];
      }
      for (const language of new Set(languages.map((l) => l.slice(0, 20))))
        await q.query('INSERT INTO site_languages (language, site_id) VALUES (?, ?)', [language, row.id]);
      await q.query('UPDATE sites SET language_count = ? WHERE id = ?', [languages.length, row.id]);
    }
    after = rows[rows.length - 1].id;
  }
}

/**
 * The version key as this migration wrote it, frozen here: a migration that imported the live
 * function would change what it writes whenever that function changed. (The service's own is
 * services/site-index/version-key.ts; a test holds the two together for today's rule.)
 */
export function versionKeyOf(version: string): string {
  const match = /(\d{1,12}(?:\.\d{1,12}){0,9})/.exec(version.slice(0, 100));
  if (!match) return '';
  return match[1]
    .split('.')
    .slice(0, 4)
    .map((part) => String(Math.min(Number(part), 999_999)).padStart(6, '0'))
    .join('.');
}
