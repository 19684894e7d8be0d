import { versionedCpes, type Fingerprints } from '../../detection';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { trafficLevelOf, type EnrichmentSet, type SiteEnrichment } from '../../enrichment';
import type { SiteEntity } from '../../storage/entities';
import type { StoredSiteRepository } from '../../storage/stored-site.repository';
import { EnrichmentFields, flattenSets } from '../analysis/enrichment-fields';
import { eventsOf, parseList, SiteIndexService } from '../site-index/site-index.service';
import { siteKeyOf } from '../site-index/site-key';
import { VersionedCache } from '../platform/versioned-cache';
import { deepFreeze } from '../../platform/deep-freeze';
import { HELD_BYTES_PER_JSON_BYTE } from '../platform/held-bytes';

/**
 * The memory the sites' current technologies kept in memory may take (see
 * StoredSiteReader.technologies), estimated as HELD_BYTES_PER_JSON_BYTE times their JSON text.
 */
const TECHNOLOGY_CACHE_BYTES = 16 * 1024 * 1024;

/** A site's current technology as stored (site_technologies), before the window and the form. */
interface StoredTechnology {
  slug: string;
  name: string;
  versions: string[];
  confidence: number;
  confirmedAt: Date;
  fingerprintsVersion: string;
}

/** A current technology as stored (for the window and denoise) and as published. */
interface CurrentTechnology {
  stored: StoredTechnology;
  technology: LookupTechnology;
}

/** The Technology object of Lookup v2 (and GraphQL's richer form: confidence stays on GraphQL). */
export interface LookupTechnology {
  slug: string;
  name: string;
  cpe: string | null;
  /** The CPE with each version in its version slot (see versionedCpes); GraphQL only, REST derives it. */
  versionedCpes: string[];
  versions: string[];
  categories: { id: number; slug: string; name: string }[];
  /** The site's traffic rank (1 = most traffic), null when the index has none yet. */
  trafficRank: number | null;
  /** UNIX seconds of the last analysis that confirmed it (within a month: see months()). */
  confirmedAt: number;
  confidence: number;
  /**
   * The fingerprint version of the analysis that last confirmed it (a month's: its latest); '' when
   * stored before versions were recorded. GraphQL only: not part of the published shape.
   */
  fingerprintsVersion: string;
}

/** One month of a site's history (squash=false). */
export interface LookupTechnologyMonth {
  /** MM-YYYY */
  monthYear: string;
  technologies: LookupTechnology[];
}

/**
 * How old a stored result may be, in months: it counts when it was confirmed between `maxAge`
 * months ago and `minAge` months ago (the lookup's min_age/max_age).
 */
export interface AgeWindow {
  minAge: number;
  maxAge: number;
}

export interface ReadOptions {
  window: AgeWindow;
  /** Technologies under this confidence are left out (denoise). */
  minConfidence: number;
  now: Date;
}

/**
 * Reads a site's stored answer in the published shapes: technologies with their catalogue
 * categories and the site's rank, the monthly history, and the enriched record's field sets. The
 * one source of Lookup v2, of Live/Crawl v2's `sets=`, and of their callbacks.
 */
export class StoredSiteReader {
  /**
   * Site id → its current technologies, each as stored and in its published form (frozen: shared
   * by every request, and lookup.contract.ts keeps each one's JSON text), under the version of
   * the site row they were read at.
   */
  private readonly current = new VersionedCache<number, CurrentTechnology[]>({
    maxBytes: TECHNOLOGY_CACHE_BYTES,
    weigh: (technologies) => HELD_BYTES_PER_JSON_BYTE * JSON.stringify(technologies).length,
  });

  constructor(
    private readonly stored: StoredSiteRepository,
    private readonly index: Pick<SiteIndexService, 'siteRows' | 'enrichmentOf'>,
    fingerprints: Fingerprints | EngineSource,
  ) {
    this.fingerprintsNow = fingerprintsOf(fingerprints);
  }

  /** The active set's fingerprints, read per call (they switch live). */
  private readonly fingerprintsNow: () => Pick<Fingerprints, 'technologyBySlug'>;

  /** The site of a URL (its host name without www.), or null when the index does not know it. */
  async site(url: string): Promise<SiteEntity | null> {
    const row = await this.index.siteRows.load(siteKeyOf(url).hostname);
    return row ? this.stored.site(row) : null;
  }

  /** Whether the site's last analysis falls inside the window: else it counts as unseen. */
  isFresh(site: SiteEntity, window: AgeWindow, now: Date): boolean {
    const { from, to } = windowBounds(window, now);
    const at = site.lastAnalyzedAt.getTime();
    return at >= from.getTime() && at <= to.getTime();
  }

  /**
   * The site's technologies confirmed inside the window, by confidence. The site's current
   * technologies are kept in memory (TECHNOLOGY_CACHE_BYTES of them, least recently used out) and
   * used while the site row read for this request says nothing was recorded since: every recorded
   * analysis raises its page views and last analysis time in the transaction that writes the
   * technologies, in any process (Lookup v1's history cache rests on the same rule). The window
   * and the confidence are applied to them here, so one read serves every window.
   */
  async technologies(site: SiteEntity, options: ReadOptions): Promise<LookupTechnology[]> {
    const { from, to } = windowBounds(options.window, options.now);
    const start = from.getTime();
    const end = to.getTime();
    const kept: LookupTechnology[] = [];
    for (const { stored, technology } of await this.currentTechnologies(site)) {
      const at = stored.confirmedAt.getTime();
      if (stored.confidence >= options.minConfidence && at >= start && at <= end) kept.push(technology);
    }
    return kept;
  }

  private currentTechnologies(site: SiteEntity): Promise<CurrentTechnology[]> {
    // The published form carries the site's rank: a new rank is a new version too.
    const version = `${site.hits} ${site.lastAnalyzedAt.getTime()} ${site.trafficRank}`;
    return this.current.get(site.id, version, async () =>
      (await this.stored.currentTechnologies(site.id)).map((row) => {
        const stored: StoredTechnology = {
          slug: row.slug,
          name: row.name,
          versions: parseList(row.versions),
          confidence: row.confidence,
          confirmedAt: row.confirmedAt,
          fingerprintsVersion: row.fingerprintsVersion,
        };
        const technology = this.technology(
          site,
          stored.slug,
          stored.name,
          stored.versions,
          stored.confidence,
          stored.confirmedAt,
          stored.fingerprintsVersion,
        );
        return { stored, technology: deepFreeze(technology) };
      }),
    );
  }

  /** The site's months inside the window, oldest first; a month's confirmedAt is its last moment (or the last confirmation, if earlier). */
  async months(site: SiteEntity, options: ReadOptions): Promise<LookupTechnologyMonth[]> {
    const { from, to } = windowBounds(options.window, options.now);
    const rows = await this.stored.monthTechnologies(site.id, monthOf(from), monthOf(to));
    const current = await this.stored.confirmedAt(site.id, [...new Set(rows.map((r) => r.slug))]);
    const months = new Map<string, LookupTechnology[]>();
    for (const row of rows) {
      if (row.confidence < options.minConfidence) continue;
      const monthEnd = endOfMonth(row.month);
      const confirmed = current.get(row.slug);
      const confirmedAt = confirmed && confirmed < monthEnd ? confirmed : monthEnd;
      const list = months.get(row.month) ?? [];
      list.push(
        this.technology(
          site,
          row.slug,
          row.name,
          parseList(row.versions),
          row.confidence,
          confirmedAt,
          row.fingerprintsVersion,
        ),
      );
      months.set(row.month, list);
    }
    return [...months].map(([month, technologies]) => ({
      monthYear: `${month.slice(5, 7)}-${month.slice(0, 4)}`,
      technologies,
    }));
  }

  /**
   * The requested field sets of the site's stored record, flat. trafficLevel is recomputed from
   * the site's current rank (ranks move after the record was written).
   */
  async fields(site: SiteEntity, sets: readonly EnrichmentSet[]): Promise<EnrichmentFields> {
    if (sets.length === 0) return {};
    return storedFields(site, await this.index.enrichmentOf(site), sets);
  }

  private technology(
    site: SiteEntity,
    slug: string,
    name: string,
    versions: string[],
    confidence: number,
    confirmedAt: Date,
    fingerprintsVersion: string,
  ): LookupTechnology {
    const known = this.fingerprintsNow().technologyBySlug(slug);
    return {
      slug,
      name: known?.name ?? name,
      cpe: known?.cpe ?? null,
      versionedCpes: versionedCpes(known?.cpe, versions),
      versions,
      categories: (known?.categories ?? []).map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
      trafficRank: site.trafficRank,
      confirmedAt: Math.floor(confirmedAt.getTime() / 1000),
      confidence,
      fingerprintsVersion,
    };
  }
}

/**
 * The requested field sets of a site's stored record (null: never enriched), flat, with
 * trafficLevel from the site's current rank (ranks move after the record was written).
 */
export function storedFields(
  site: SiteEntity,
  enrichment: SiteEnrichment | null,
  sets: readonly EnrichmentSet[],
): EnrichmentFields {
  if (!enrichment) return sets.includes('events') ? { ...eventsOf(site) } : {};
  const level = trafficLevelOf(site.trafficRank ?? undefined);
  // A record written before a set existed (or imported) lacks it: the level stands alone then.
  const { trafficLevel: _stale, ...signals } = enrichment.signals ?? {};
  enrichment.signals = level ? { ...signals, trafficLevel: level } : signals;
  return flattenSets(enrichment, sets);
}

/** The window as instants: from `maxAge` months ago to `minAge` months ago. */
export function windowBounds(window: AgeWindow, now: Date): { from: Date; to: Date } {
  return { from: monthsBefore(now, window.maxAge), to: monthsBefore(now, window.minAge) };
}

function monthsBefore(now: Date, months: number): Date {
  const at = new Date(now.getTime());
  const day = at.getUTCDate();
  at.setUTCDate(1);
  at.setUTCMonth(at.getUTCMonth() - months);
  // The same day of that month, or its last day (31 March minus one month is 28/29 February).
  const last = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, last));
  return at;
}

function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

function endOfMonth(month: string): Date {
  const [year, m] = month.split('-').map(Number);
  return new Date(Date.UTC(year, m, 1) - 1);
}
