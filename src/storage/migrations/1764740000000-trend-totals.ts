import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * The trend totals (issue 32 §5): trend_counts summed over every country, one row per kind, name,
 * month, version and rank bucket, kept in step with trend_counts in the same transactions. A trend
 * asked for without countries (with or without a rank) then reads at most five rows per month and
 * version instead of one per country and bucket (a thousand for a common technology). Backfilled
 * from trend_counts.
 */
export class TrendTotals1764740000000 implements MigrationInterface {
  name = 'TrendTotals1764740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'trend_totals',
        columns: [
          { name: 'kind', type: 'varchar', length: '1', isPrimary: true },
          { name: 'name', type: 'varchar', length: '120', isPrimary: true },
          { name: 'month', type: 'varchar', length: '7', isPrimary: true },
          { name: 'version', type: 'varchar', length: '64', isPrimary: true },
          { name: 'rank_bucket', type: 'int', isPrimary: true },
          { name: 'sites', type: 'int', default: 0 },
        ],
      }),
    );
    await q.query(
      'INSERT INTO trend_totals (kind, name, month, version, rank_bucket, sites) ' +
        'SELECT kind, name, month, version, rank_bucket, SUM(sites) FROM trend_counts ' +
        'GROUP BY kind, name, month, version, rank_bucket',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('trend_totals');
  }
}
