import type { Fingerprints } from '../../detection';
import { NotFoundError } from '../../errors';
import type { Database } from '../../storage/database';
import { TrendRepository, type TrendCountRow, type TrendKind } from '../../storage/trend.repository';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { RANK_BUCKETS } from '../site-index/trend-writer';
import type { CategoryTrendInput, TechnologyTrendInput, Trend, TrendMonth } from './trends.contract';

/** Versions a month lists at most (the most widespread). */
const MAX_MONTH_VERSIONS = 100;

interface Window {
  months: string[];
  countries: string[];
  rankBuckets: number[];
}

/**
 * Adoption trends read from the trend aggregates (trend_counts, raised as analyses are stored):
 * per month, the sites on which a technology (or any technology of a category) was seen, the share
 * of the sites analysed that month in the same countries and rank, the version distribution, and
 * the fingerprint versions that saw it, so a jump caused by a rule change shows as one. A request
 * reads a few ranges of the aggregates' key, whatever the size of the index.
 */
export class TrendService {
  private readonly repository: TrendRepository;
  private readonly fingerprintsNow: () => Fingerprints;
  /** The clock that says which month is current (tests move it across months). */
  clock: { now(): number } = { now: () => Date.now() };

  constructor(db: Database, fingerprints: Fingerprints | EngineSource) {
    this.repository = new TrendRepository(db);
    this.fingerprintsNow = fingerprintsOf(fingerprints);
  }

  async technology(input: TechnologyTrendInput): Promise<Trend> {
    const technology = this.fingerprintsNow().technologyBySlug(input.slug);
    if (!technology) throw new NotFoundError(`No technology with slug ${JSON.stringify(input.slug)}`);
    const window = this.windowOf(input);
    const [analysed, versions, fingerprints] = await Promise.all([
      this.read('s', [''], window),
      this.read('v', [technology.slug], window),
      this.read('f', [technology.slug], window, true),
    ]);
    const wanted = input.version;
    const matching = wanted
      ? versions.filter((r) => r.version === wanted || r.version.startsWith(`${wanted}.`))
      : versions;
    // With a version, a site counts once per matching version seen (two in one month count twice).
    const counted = wanted ? matching : await this.read('t', [technology.slug], window);
    return {
      slug: technology.slug,
      name: technology.name,
      months: seriesOf(window, analysed, counted, matching, fingerprints),
    };
  }

  async category(input: CategoryTrendInput): Promise<Trend> {
    const fingerprints = this.fingerprintsNow();
    const category = fingerprints.categoryBySlug(input.slug);
    if (!category) throw new NotFoundError(`No category with slug ${JSON.stringify(input.slug)}`);
    const window = this.windowOf(input);
    const members = fingerprints.technologies
      .filter((t) => t.categories.some((c) => c.id === category.id))
      .map((t) => t.slug);
    const [analysed, counted, rules] = await Promise.all([
      this.read('s', [''], window),
      this.read('c', [category.name], window),
      this.read('f', members, window, true),
    ]);
    return {
      slug: category.slug,
      name: category.name,
      months: seriesOf(window, analysed, counted, [], rules),
    };
  }

  /** The months asked for (and the one before, for the first month's switch) and the dimensions. */
  private windowOf(input: { months: number; until?: string; countries?: string[]; rank?: string }): Window {
    const now = new Date(this.clock.now());
    const [year, month] = input.until
      ? input.until.split('-').map(Number)
      : [now.getUTCFullYear(), now.getUTCMonth() + 1];
    const months: string[] = [];
    for (let i = input.months; i >= 0; i--)
      months.push(new Date(Date.UTC(year, month - 1 - i, 1)).toISOString().slice(0, 7));
    const top = input.rank ? Number(input.rank) : null;
    return {
      months,
      countries: input.countries ?? [],
      rankBuckets:
        top === null ? [] : RANK_BUCKETS.filter((b) => b <= top).map((b) => RANK_BUCKETS.indexOf(b) + 1),
    };
  }

  /** One kind's rows over the window; fingerprint rows are kept whatever the dimensions asked. */
  private async read(
    kind: TrendKind,
    names: readonly string[],
    window: Window,
    undivided = false,
  ): Promise<TrendCountRow[]> {
    if (names.length === 0) return [];
    return this.repository.counts({
      kind,
      names,
      fromMonth: window.months[0],
      toMonth: window.months[window.months.length - 1],
      countries: undivided ? [] : window.countries,
      rankBuckets: undivided ? [] : window.rankBuckets,
    });
  }
}

function seriesOf(
  window: Window,
  analysed: readonly TrendCountRow[],
  counted: readonly TrendCountRow[],
  versions: readonly TrendCountRow[],
  fingerprints: readonly TrendCountRow[],
): TrendMonth[] {
  const sum = (rows: readonly TrendCountRow[], month: string) =>
    rows.reduce((total, r) => (r.month === month ? total + r.sites : total), 0);
  const rulesOf = (month: string) =>
    [...new Set(fingerprints.filter((r) => r.month === month).map((r) => r.version))].sort();
  return window.months.slice(1).map((month, i) => {
    const sites = sum(counted, month);
    const analysedSites = sum(analysed, month);
    const rules = rulesOf(month);
    const before = rulesOf(window.months[i]);
    const byVersion = new Map<string, number>();
    for (const r of versions)
      if (r.month === month) byVersion.set(r.version, (byVersion.get(r.version) ?? 0) + r.sites);
    return {
      month,
      sites,
      analysedSites,
      share: analysedSites === 0 ? 0 : Math.round((sites / analysedSites) * 1e6) / 1e6,
      versions: [...byVersion]
        .sort(([va, a], [vb, b]) => b - a || (va < vb ? -1 : va > vb ? 1 : 0))
        .slice(0, MAX_MONTH_VERSIONS)
        .map(([version, n]) => ({ version, sites: n })),
      fingerprintsVersions: rules,
      fingerprintsChanged: before.length > 0 && rules.some((v) => !before.includes(v)),
    };
  });
}
