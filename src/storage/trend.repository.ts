import type { EntityManager } from 'typeorm';
import type { Database } from './database';

/**
 * What a trend count counts (trend_counts.kind):
 * - 's': sites analysed in the month (name ''), the share's denominator;
 * - 't': sites on which the technology `name` was seen in the month;
 * - 'c': sites on which some technology of the category `name` (its name, as the monthly history
 *   stores categories) was seen;
 * - 'v': sites on which version `version` of the technology `name` was seen;
 * - 'f': sites on which fingerprint version `version` saw the technology `name` (country '' and
 *   bucket 0 only: the series marks a switch of rules, it is not filtered).
 */
export type TrendKind = 's' | 't' | 'c' | 'v' | 'f';

/** One increment of a count. */
export interface TrendIncrement {
  kind: TrendKind;
  name: string;
  month: string;
  version: string;
  country: string;
  rankBucket: number;
}

/** A month's summed count (of one version where the kind has versions). */
export interface TrendCountRow {
  month: string;
  version: string;
  sites: number;
}

/** Which counts to sum: the key's prefix (kind, name, months) and the optional dimensions. */
export interface TrendQuery {
  kind: TrendKind;
  /** One name, or several whose counts are summed (the fingerprint versions of a category's technologies). */
  names: readonly string[];
  fromMonth: string;
  toMonth: string;
  /** Empty: every country (the unknown one, '', included). */
  countries: readonly string[];
  /** Empty: every bucket. */
  rankBuckets: readonly number[];
}

const KEY = 'kind, name, month, version, country, rank_bucket';

/**
 * The trend aggregates (trend_counts): counts of sites per kind, name, month, version, country and
 * rank bucket, raised in the transaction that stores an analysis and read by the trends, whose
 * every read is a range of the primary key (kind, name, month, …) — never a scan of the index.
 */
export class TrendRepository {
  constructor(private readonly db: Database) {}

  /**
   * Adds one site to each count (created at 1 when missing), one statement. The rows are written
   * in key order: two analyses raising the same counts lock them in the same order (no deadlock).
   */
  async increment(m: EntityManager, increments: readonly TrendIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const rows = [...increments].sort(compareKeys);
    const values: unknown[] = [];
    for (const r of rows) values.push(r.kind, r.name, r.month, r.version, r.country, r.rankBucket);
    const placeholders = rows.map(() => '(?, ?, ?, ?, ?, ?, 1)').join(', ');
    const conflict =
      this.db.dialect === 'sqlite'
        ? `ON CONFLICT (${KEY}) DO UPDATE SET sites = sites + 1`
        : 'ON DUPLICATE KEY UPDATE sites = sites + 1';
    await m.query(`INSERT INTO trend_counts (${KEY}, sites) VALUES ${placeholders} ${conflict}`, values);
  }

  /**
   * Takes one site off each count (never below zero), the reverse of `increment`, in the same key
   * order: a site counted in the wrong country is moved with this and `increment`.
   */
  async decrement(m: EntityManager, decrements: readonly TrendIncrement[]): Promise<void> {
    for (const r of [...decrements].sort(compareKeys))
      await m.query(
        `UPDATE trend_counts SET sites = sites - 1 WHERE kind = ? AND name = ? AND month = ? AND version = ? ` +
          'AND country = ? AND rank_bucket = ? AND sites > 0',
        [r.kind, r.name, r.month, r.version, r.country, r.rankBucket],
      );
  }

  /** What a site's monthly history holds for one month: its technologies, their categories and versions. */
  async siteMonth(
    m: EntityManager,
    siteId: number,
    month: string,
  ): Promise<{ counted: boolean; rows: { slug: string; categories: string; versions: string }[] }> {
    const months = (await m.query('SELECT 1 AS one FROM site_months WHERE site_id = ? AND month = ?', [
      siteId,
      month,
    ])) as unknown[];
    if (months.length === 0) return { counted: false, rows: [] };
    const rows = (await m.query(
      'SELECT slug, categories, versions FROM site_month_technologies WHERE site_id = ? AND month = ?',
      [siteId, month],
    )) as { slug: string; categories: string; versions: string }[];
    return { counted: true, rows };
  }

  /** The counts of one kind and name per month (and version), summed over the chosen dimensions. */
  async counts(q: TrendQuery): Promise<TrendCountRow[]> {
    const params: unknown[] = [q.kind, ...q.names, q.fromMonth, q.toMonth];
    let where = `kind = ? AND name ${q.names.length === 1 ? '= ?' : `IN (${q.names.map(() => '?').join(', ')})`} AND month >= ? AND month <= ?`;
    if (q.countries.length > 0) {
      where += ` AND country IN (${q.countries.map(() => '?').join(', ')})`;
      params.push(...q.countries);
    }
    if (q.rankBuckets.length > 0) {
      where += ` AND rank_bucket IN (${q.rankBuckets.map(() => '?').join(', ')})`;
      params.push(...q.rankBuckets);
    }
    const rows = await this.db.query<{ month: string; version: string; sites: number | string }[]>(
      `SELECT month, version, SUM(sites) AS sites FROM trend_counts WHERE ${where} GROUP BY month, version`,
      params,
    );
    return rows.map((r) => ({ month: r.month, version: r.version, sites: Number(r.sites) }));
  }
}

function compareKeys(a: TrendIncrement, b: TrendIncrement): number {
  const ka = [a.kind, a.name, a.month, a.version, a.country];
  const kb = [b.kind, b.name, b.month, b.version, b.country];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return a.rankBucket - b.rankBucket;
}
