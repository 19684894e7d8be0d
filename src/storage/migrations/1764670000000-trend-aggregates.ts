import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/** Sites read per batch while backfilling categories, versions and fingerprint versions. */
const BATCH = 2000;
/** Rows per insert of the backfill. */
const INSERT_ROWS = 500;

/** The rank bucket of a site (see trend-writer.ts: 1 top 1k, 2 top 10k, 3 top 100k, 4 top 1M, 0 else). */
const BUCKET =
  'CASE WHEN s.traffic_rank IS NULL THEN 0 WHEN s.traffic_rank <= 1000 THEN 1 ' +
  'WHEN s.traffic_rank <= 10000 THEN 2 WHEN s.traffic_rank <= 100000 THEN 3 ' +
  'WHEN s.traffic_rank <= 1000000 THEN 4 ELSE 0 END';

/**
 * The trend aggregates (issue 32 §5): trend_counts, sites per kind ('s' analysed, 't' technology,
 * 'c' category, 'v' version, 'f' fingerprint version), name, month, version, country and rank
 * bucket, raised as analyses are stored. Backfilled from the monthly history (site_months,
 * site_month_technologies) with each site's country and rank as they are now, which is the best the
 * history knows: it did not keep a site's country or rank per month.
 */
export class TrendAggregates1764670000000 implements MigrationInterface {
  name = 'TrendAggregates1764670000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'trend_counts',
        columns: [
          { name: 'kind', type: 'varchar', length: '1', isPrimary: true },
          { name: 'name', type: 'varchar', length: '120', isPrimary: true },
          { name: 'month', type: 'varchar', length: '7', isPrimary: true },
          { name: 'version', type: 'varchar', length: '64', isPrimary: true },
          { name: 'country', type: 'varchar', length: '2', isPrimary: true },
          { name: 'rank_bucket', type: 'int', isPrimary: true },
          { name: 'sites', type: 'int', default: 0 },
        ],
      }),
    );
    await q.query(
      'INSERT INTO trend_counts (kind, name, month, version, country, rank_bucket, sites) ' +
        `SELECT 's', '', m.month, '', COALESCE(s.country, ''), ${BUCKET}, COUNT(*) ` +
        `FROM site_months m JOIN sites s ON s.id = m.site_id GROUP BY m.month, COALESCE(s.country, ''), ${BUCKET}`,
    );
    await q.query(
      'INSERT INTO trend_counts (kind, name, month, version, country, rank_bucket, sites) ' +
        `SELECT 't', t.slug, t.month, '', COALESCE(s.country, ''), ${BUCKET}, COUNT(*) ` +
        'FROM site_month_technologies t JOIN sites s ON s.id = t.site_id ' +
        `GROUP BY t.slug, t.month, COALESCE(s.country, ''), ${BUCKET}`,
    );
    await this.backfillLists(q);
  }

  /** Categories, versions and fingerprint versions: JSON lists, read in batches of sites. */
  private async backfillLists(q: QueryRunner): Promise<void> {
    const [{ top }] = (await q.query('SELECT MAX(site_id) AS top FROM site_month_technologies')) as {
      top: number | string | null;
    }[];
    const counts = new Map<string, number>();
    const add = (key: string[]) => {
      const k = key.join('\u0000');
      counts.set(k, (counts.get(k) ?? 0) + 1);
    };
    for (let from = 0; top !== null && from < Number(top); from += BATCH) {
      const rows = (await q.query(
        `SELECT t.site_id, t.month, t.slug, t.categories, t.versions, t.fingerprints_versions, ` +
          `COALESCE(s.country, '') AS country, ${BUCKET} AS bucket ` +
          'FROM site_month_technologies t JOIN sites s ON s.id = t.site_id WHERE t.site_id > ? AND t.site_id <= ?',
        [from, from + BATCH],
      )) as {
        site_id: number;
        month: string;
        slug: string;
        categories: string;
        versions: string;
        fingerprints_versions: string;
        country: string;
        bucket: number | string;
      }[];
      const categories = new Map<string, Set<string>>();
      for (const row of rows) {
        const bucket = String(Number(row.bucket));
        const siteMonth = `${row.site_id} ${row.month}\u0000${row.country}\u0000${bucket}`;
        const seen = categories.get(siteMonth) ?? new Set<string>();
        categories.set(siteMonth, seen);
        for (const c of listOf(row.categories)) seen.add(c.slice(0, 120));
        for (const v of new Set(listOf(row.versions).map((v) => v.slice(0, 64))))
          add(['v', row.slug, row.month, v, row.country, bucket]);
        for (const f of new Set(listOf(row.fingerprints_versions)))
          add(['f', row.slug, row.month, f, '', '0']);
      }
      for (const [siteMonth, names] of categories) {
        const [, rest] = siteMonth.split(' ');
        const [month, country, bucket] = rest.split('\u0000');
        for (const name of names) add(['c', name, month, '', country, bucket]);
      }
    }
    const rows = [...counts];
    for (let i = 0; i < rows.length; i += INSERT_ROWS) {
      const part = rows.slice(i, i + INSERT_ROWS);
      await q.query(
        'INSERT INTO trend_counts (kind, name, month, version, country, rank_bucket, sites) VALUES ' +
          part.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', '),
        part.flatMap(([key, sites]) => {
          const [kind, name, month, version, country, bucket] = key.split('\u0000');
          return [kind, name, month, version, country, Number(bucket), sites];
        }),
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('trend_counts');
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
