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
const TOTAL_KEY = 'kind, name, month, version, rank_bucket';

/**
 * The trend aggregates (trend_counts): counts of sites per kind, name, month, version, country and
 * rank bucket, raised in the transaction that stores an analysis and read by the trends, whose
 * every read is a range of the primary key (kind, name, month, …) — never a scan of the index —
 * and their totals over every country per rank bucket (trend_totals), kept with them, which a
 * trend without countries reads instead.
 */
export class TrendRepository {
  constructor(private readonly db: Database) {}

  /**
   * Adds one site to each count (created at 1 when missing), and as many to the totals over every
   * country of its rank bucket: one statement each. The rows are written in key order: two analyses
   * raising the same counts lock them in the same order (no deadlock).
   */
  async increment(m: EntityManager, increments: readonly TrendIncrement[]): Promise<void> {
    if (increments.length === 0) return;
    const rows = [...increments].sort(compareKeys);
    const values: unknown[] = [];
    for (const r of rows) values.push(r.kind, r.name, r.month, r.version, r.country, r.rankBucket);
    const placeholders = rows.map(() => '(?, ?, ?, ?, ?, ?, 1)').join(', ');
    await m.query(
      `INSERT INTO trend_counts (${KEY}, sites) VALUES ${placeholders} ${this.addOnConflict(KEY, '1')}`,
      values,
    );
    const totals = new Map<string, { key: unknown[]; sites: number }>();
    for (const r of rows) {
      const key = [r.kind, r.name, r.month, r.version, r.rankBucket];
      const id = key.join('\u0000');
      const total = totals.get(id) ?? { key, sites: 0 };
      total.sites += 1;
      totals.set(id, total);
    }
    await m.query(
      `INSERT INTO trend_totals (${TOTAL_KEY}, sites) VALUES ${[...totals.values()].map(() => '(?, ?, ?, ?, ?, ?)').join(', ')} ` +
        this.addOnConflict(TOTAL_KEY, this.db.dialect === 'sqlite' ? 'excluded.sites' : 'VALUES(sites)'),
      [...totals.values()].flatMap((t) => [...t.key, t.sites]),
    );
  }

  /** The upsert's clause that adds `added` to a row already there. */
  private addOnConflict(key: string, added: string): string {
    return this.db.dialect === 'sqlite'
      ? `ON CONFLICT (${key}) DO UPDATE SET sites = sites + ${added}`
      : `ON DUPLICATE KEY UPDATE sites = sites + ${added}`;
  }

  /**
   * Takes one site off each count (never below zero), the reverse of `increment`, in the same key
   * order, counts before totals as there: a site counted in the wrong country is moved with this
   * and `increment`. A total loses the site only where its count did.
   */
  async decrement(m: EntityManager, decrements: readonly TrendIncrement[]): Promise<void> {
    const runner = m.queryRunner ?? m.connection.createQueryRunner();
    try {
      const taken: TrendIncrement[] = [];
      for (const r of [...decrements].sort(compareKeys)) {
        const counted = (await runner.query(
          'UPDATE trend_counts SET sites = sites - 1 WHERE kind = ? AND name = ? AND month = ? AND version = ? ' +
            'AND country = ? AND rank_bucket = ? AND sites > 0',
          [r.kind, r.name, r.month, r.version, r.country, r.rankBucket],
          true,
        )) as { affected?: number };
        if (counted.affected) taken.push(r);
      }
      for (const r of taken)
        await runner.query(
          'UPDATE trend_totals SET sites = sites - 1 WHERE kind = ? AND name = ? AND month = ? AND version = ? ' +
            'AND rank_bucket = ? AND sites > 0',
          [r.kind, r.name, r.month, r.version, r.rankBucket],
        );
    } finally {
      if (runner !== m.queryRunner) await runner.release();
    }
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

  /**
   * The counts of one kind and name per month (and version), summed over the chosen dimensions.
   * Without countries they come from the totals (a few rows per month and version). With
   * countries, from the counts, by key: every month, version and country of the window named,
   * so that the read is one short range per month, version and country instead of every row of
   * the months (a thousand per month for a common technology) filtered.
   */
  async counts(q: TrendQuery): Promise<TrendCountRow[]> {
    const byCountry = q.countries.length > 0;
    const params: unknown[] = [q.kind, ...q.names];
    let where = `kind = ? AND name ${inList(q.names)}`;
    if (byCountry) {
      const versions = VERSIONLESS.includes(q.kind) ? [''] : await this.versionsOf(q);
      if (versions.length === 0) return [];
      const months = monthsBetween(q.fromMonth, q.toMonth);
      where += ` AND month ${inList(months)}`;
      params.push(...months);
      if (versions.length <= MAX_KEYED_VERSIONS) {
        where += ` AND version ${inList(versions)}`;
        params.push(...versions);
      }
      where += ` AND country ${inList(q.countries)}`;
      params.push(...q.countries);
    } else {
      where += ' AND month >= ? AND month <= ?';
      params.push(q.fromMonth, q.toMonth);
    }
    if (q.rankBuckets.length > 0) {
      where += ` AND rank_bucket ${inList(q.rankBuckets)}`;
      params.push(...q.rankBuckets);
    }
    const rows = await this.db.query<{ month: string; version: string; sites: number | string }[]>(
      `SELECT month, version, SUM(sites) AS sites FROM ${byCountry ? 'trend_counts' : 'trend_totals'} ` +
        `WHERE ${where} GROUP BY month, version`,
      params,
    );
    return rows.map((r) => ({ month: r.month, version: r.version, sites: Number(r.sites) }));
  }

  /** The versions a kind with versions counted for the names in the window (from the totals). */
  private async versionsOf(q: TrendQuery): Promise<string[]> {
    const rows = await this.db.query<{ version: string }[]>(
      `SELECT DISTINCT version FROM trend_totals WHERE kind = ? AND name ${inList(q.names)} AND month >= ? AND month <= ?`,
      [q.kind, ...q.names, q.fromMonth, q.toMonth],
    );
    return rows.map((r) => r.version);
  }
}

/** Kinds whose counts have no version (always ''). */
const VERSIONLESS: readonly TrendKind[] = ['s', 't', 'c'];
/** Versions named in a read by country at most; beyond, the read names months and countries only. */
const MAX_KEYED_VERSIONS = 200;

function inList(values: readonly unknown[]): string {
  return values.length === 1 ? '= ?' : `IN (${values.map(() => '?').join(', ')})`;
}

/** Every month from `from` to `to` (YYYY-MM), both included. */
function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  const [year, month] = from.split('-').map(Number);
  for (let i = 0; ; i++) {
    const next = new Date(Date.UTC(year, month - 1 + i, 1)).toISOString().slice(0, 7);
    if (next > to) return months;
    months.push(next);
  }
}

function compareKeys(a: TrendIncrement, b: TrendIncrement): number {
  const ka = [a.kind, a.name, a.month, a.version, a.country];
  const kb = [b.kind, b.name, b.month, b.version, b.country];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return a.rankBucket - b.rankBucket;
}
