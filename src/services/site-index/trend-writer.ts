import type { EntityManager } from 'typeorm';
import type { Database } from '../../storage/database';
import { TrendRepository, type TrendIncrement } from '../../storage/trend.repository';

/** What one analysis added to a site's month: the counts of the trends it raises by one site. */
export interface MonthDelta {
  /** The month's first analysis of the site (it joins the month's analysed sites). */
  newMonth: boolean;
  /** Technologies first seen on the site this month. */
  technologies: string[];
  /** Category names first seen on the site this month (through any of its technologies). */
  categories: string[];
  /** Versions first seen on the site this month. */
  versions: { slug: string; version: string }[];
  /** Fingerprint versions that first saw a technology on the site this month. */
  fingerprints: { slug: string; version: string }[];
}

/** Rank buckets, by the largest rank each holds; a site beyond the last (or unranked) is bucket 0. */
export const RANK_BUCKETS = [1_000, 10_000, 100_000, 1_000_000] as const;

export function rankBucketOf(rank: number | null): number {
  if (rank === null || rank <= 0) return 0;
  const i = RANK_BUCKETS.findIndex((top) => rank <= top);
  return i < 0 ? 0 : i + 1;
}

/**
 * Keeps the trend aggregates in step with the monthly history: each count is raised once per site
 * and month, when the month's history of the site gains what it counts, in the analysis's
 * transaction. A site is counted in the country and rank bucket its row holds at that moment.
 */
export class TrendWriter {
  private readonly repository: TrendRepository;

  constructor(db: Database) {
    this.repository = new TrendRepository(db);
  }

  async write(
    m: EntityManager,
    site: { country: string | null; trafficRank: number | null },
    month: string,
    delta: MonthDelta,
  ): Promise<void> {
    const country = site.country ?? '';
    const rankBucket = rankBucketOf(site.trafficRank);
    const at = { month, country, rankBucket };
    const increments: TrendIncrement[] = [];
    if (delta.newMonth) increments.push({ kind: 's', name: '', version: '', ...at });
    for (const slug of delta.technologies) increments.push({ kind: 't', name: slug, version: '', ...at });
    for (const name of delta.categories) increments.push({ kind: 'c', name, version: '', ...at });
    for (const v of delta.versions)
      increments.push({ kind: 'v', name: v.slug, version: v.version.slice(0, 64), ...at });
    for (const f of delta.fingerprints)
      increments.push({ kind: 'f', name: f.slug, version: f.version, month, country: '', rankBucket: 0 });
    await this.repository.increment(m, increments);
  }

  /**
   * A site's first enrichment learns its country after its analysis was counted (the analysis is
   * stored first): its counts of that month move from the unknown country to the new one, so a
   * new site's first month counts where it is. Later changes of country leave counted months as
   * they are (a site is counted where it was when its month was counted).
   */
  async countryLearned(
    m: EntityManager,
    site: { id: number; trafficRank: number | null },
    month: string,
    country: string,
  ): Promise<void> {
    const { counted, rows } = await this.repository.siteMonth(m, site.id, month);
    if (!counted) return;
    const rankBucket = rankBucketOf(site.trafficRank);
    const counts = (where: string): TrendIncrement[] => {
      const at = { month, country: where, rankBucket };
      const list: TrendIncrement[] = [{ kind: 's', name: '', version: '', ...at }];
      const categories = new Set<string>();
      for (const row of rows) {
        list.push({ kind: 't', name: row.slug, version: '', ...at });
        for (const v of new Set(listOf(row.versions).map((v) => v.slice(0, 64))))
          list.push({ kind: 'v', name: row.slug, version: v, ...at });
        for (const c of listOf(row.categories)) categories.add(c.slice(0, 120));
      }
      for (const name of categories) list.push({ kind: 'c', name, version: '', ...at });
      return list;
    };
    await this.repository.decrement(m, counts(''));
    await this.repository.increment(m, counts(country));
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
