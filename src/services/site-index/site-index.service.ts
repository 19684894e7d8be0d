import { EntityManager, In } from 'typeorm';
import { rawSqlOf, RawSql } from '../../storage/raw-sql';
import { Database } from '../../storage/database';
import { SiteIndexRepository, type SiteTechnologyRef } from '../../storage/site-index.repository';
import { TechnologyTimelineRepository } from '../../storage/technology-timeline.repository';
import type { DetectedTechnology } from '../../detection';
import type { EventsSet, SiteEnrichment } from '../../enrichment';
import {
  SiteEnrichmentEntity,
  SiteEntity,
  SiteKeywordEntity,
  SiteMonthEntity,
  SiteMonthTechnologyEntity,
  SiteTechnologyEntity,
} from '../../storage/entities';
import { registrableDomainOf, SiteKey, siteKeyOf } from './site-key';
import { VersionedCache } from '../platform/versioned-cache';
import { StoredHistory } from '../lookup/stored-history';
import { SiteRowLoader } from '../../storage/site-row-loader';
import { setsMaskOf } from '../analysis/site-sets';
import { versionKeyOf } from './version-key';
import { TimelineWriter, type RecordedChange, type TimelineStep } from './timeline-writer';
import { TrendWriter, type MonthDelta } from './trend-writer';

/** One analysed page of a site. */
export interface AnalysedPage {
  url: string;
  isRoot: boolean;
  technologies: DetectedTechnology[];
  languages: string[];
  title?: string;
}

/** What one analysis (a page or a crawl) observed about one site. */
export interface SiteObservation {
  url: string;
  pages: AnalysedPage[];
  /** The site-level result: every page merged. */
  technologies: DetectedTechnology[];
  hostnames: string[];
  at: Date;
  /**
   * The fingerprint version that produced `technologies` (DetectionResult.fingerprintsVersion),
   * stored beside them; absent (imports, tests) stores '' like rows older than versions.
   */
  fingerprintsVersion?: string;
}

/** What an analysis learned about a site beyond its technologies (the field sets of /v2/lookup/). */
export interface SiteEnrichmentRecord {
  enrichment: SiteEnrichment;
  /** Where the site's business is (ISO 3166-1 alpha-2), the lists' country filter: see enrichment. */
  country?: string;
}

export interface LookupApplication {
  name: string;
  slug: string;
  categories: string[];
  versions: string[];
  hits: number;
  confidence: number;
}

export interface LookupMonth {
  /** MM-YYYY */
  monthYear: string;
  languages: string[];
  applications: LookupApplication[];
}

const MAX_VERSIONS = 10;
/** A fingerprint version's longest form (the columns' width). */
export const MAX_FINGERPRINTS_VERSION = 64;
/**
 * Distinct fingerprint versions a month keeps per technology (site_month_technologies
 * fingerprints_versions, most recently used last): rule sets rarely change more often than monthly,
 * and the column holds this many of the longest versions.
 */
const MONTH_FINGERPRINTS_VERSIONS = 4;
const MAX_LANGUAGES = 10;
const MAX_KEYWORDS = 100;
/** How long a crawl's enriched record outranks one-page analyses (see recordEnrichment). */
export const CRAWL_RECORD_PRECEDENCE_DAYS = 30;
/** Lookup v1 answers from six months ago to today. */
export const LOOKUP_MONTHS = 6;
/**
 * The memory the assembled Lookup v1 histories kept in memory may take (estimated: see
 * heldBytesOf). Counted in sites (10,000) it could grow to 400 MB of 15-technology sites.
 */
const LOOKUP_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * The site index: every analysis is recorded here (site, technologies with first-seen and
 * last-confirmed times, the monthly history, host names seen), and Lookup reads it.
 *
 * `hits` is honest about what it counts: the page views of a site that this service itself
 * recorded (one per analysed page) — not browser-extension traffic, which a self-hosted service
 * does not have. A technology's monthly hits are the recorded page views it was detected on.
 */
export class SiteIndexService {
  private readonly sql: RawSql;
  private readonly index: SiteIndexRepository;
  /** Assembled Lookup v1 histories by host name (see lookup). */
  private readonly histories = new VersionedCache<string, StoredHistory>({
    maxBytes: LOOKUP_CACHE_BYTES,
    weigh: (history) => history.heldBytes,
  });
  /** The site rows the stored lookups read first, several requests' in one statement. */
  readonly siteRows: SiteRowLoader;

  /** The technology timeline and change log, written with each analysis. */
  readonly timeline: TimelineWriter;

  /** The trend aggregates, raised with each analysis's monthly history. */
  private readonly trends: TrendWriter;

  /** The timeline's rows, for the versions on a site now. */
  private readonly timelineRows: TechnologyTimelineRepository;

  /**
   * `onChanges` hears the changes of each recorded analysis once it has committed;
   * `changesWithin` gets them inside its transaction, before the commit (the monitors schedule
   * their callbacks there, so a batch commits with its changes or not at all).
   */
  constructor(
    private readonly db: Database,
    onChanges?: (changes: RecordedChange[]) => void,
    private readonly changesWithin?: (m: EntityManager, changes: RecordedChange[]) => Promise<void>,
  ) {
    this.sql = rawSqlOf(db);
    this.index = new SiteIndexRepository(db, this.sql);
    this.siteRows = new SiteRowLoader(this.sql);
    this.timeline = new TimelineWriter(db, onChanges);
    this.trends = new TrendWriter(db);
    this.timelineRows = new TechnologyTimelineRepository(db);
  }

  /**
   * Records one analysis. Concurrent analyses of one site (MariaDB runs them in parallel) take
   * turns on the site row: the row is created in its own short transaction, then locked first
   * thing, so every read after the lock sees the previous analysis committed (no lost hit counts,
   * no duplicate technology rows) and no shared lock is ever upgraded (which deadlocks).
   */
  async record(observation: SiteObservation): Promise<SiteEntity> {
    const key = siteKeyOf(observation.url);
    const month = monthOf(observation.at);
    if ((observation.fingerprintsVersion ?? '').length > MAX_FINGERPRINTS_VERSION)
      throw new Error(
        `fingerprint version longer than ${MAX_FINGERPRINTS_VERSION} characters: ${observation.fingerprintsVersion}`,
      );
    await this.db.transaction((m) => this.insertSiteIfMissing(m, key, observation.at));
    const { site, changes } = await this.db.transaction(async (m) => {
      const site = await this.updateSite(m, key, observation);
      const timeline = await this.timeline.plan(m, site.id, observation);
      await this.upsertTechnologies(m, site.id, observation, timeline);
      const changes = await this.timeline.write(m, site, observation, timeline);
      if (changes.length > 0) await this.changesWithin?.(m, changes);
      const delta = await this.upsertMonth(m, site.id, month, observation);
      await this.trends.write(m, site, month, delta);
      return { site, changes };
    });
    this.timeline.published(changes);
    // Host names in a transaction of their own: names most sites share (an analytics or CDN host)
    // stay locked only for their upserts, not while the site's rows are written, so concurrent
    // analyses of different sites (MariaDB, several workers) do not queue behind each other on them.
    await this.db.transaction((m) => this.recordHostnames(m, observation.hostnames, 'crawl', observation.at));
    return site;
  }

  /**
   * Records host names (outside a page analysis too: DNS, certificates, discovery). One upsert per
   * name, in name order: sites sharing host names (a CDN, an analytics host) lock them in the same
   * order, and a plain upsert takes its lock once instead of upgrading a shared one.
   */
  async recordHostnames(m: EntityManager, names: readonly string[], source: string, at: Date): Promise<void> {
    const rows = new Map<string, string>();
    for (const raw of names) {
      const name = raw.toLowerCase().replace(/\.$/, '').replace(/^\*\./, '');
      if (!name || name.length > 253 || rows.has(name)) continue;
      const domain = registrableDomainOf(name);
      if (domain) rows.set(name, domain);
    }
    for (const [name, domain] of [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      await this.index.upsertHostname(m, { domain, name, source, at });
    }
  }

  async findSite(url: string): Promise<SiteEntity | null> {
    return this.db.manager.findOne(SiteEntity, { where: { hostname: siteKeyOf(url).hostname } });
  }

  /**
   * Stores what an analysis learned beyond technologies: the enriched record (without its events,
   * which come from the site row), the columns lead lists filter on (industry, company size,
   * country, the sets holding a value) and the keywords, one row each. The site must have been
   * recorded first (record()). Replaces the previous record (fields no longer found disappear),
   * except that a record read from fewer pages does not replace one of a crawl younger than
   * CRAWL_RECORD_PRECEDENCE_DAYS: a one-page analysis sees no contact or imprint page. Returns
   * whether the record was stored.
   */
  async recordEnrichment(url: string, record: SiteEnrichmentRecord, at: Date, pages = 1): Promise<boolean> {
    const { hostname } = siteKeyOf(url);
    const { events: _events, ...stored } = record.enrichment;
    const keywords = keywordTokens(record.enrichment.keywords.keywords ?? []);
    return this.db.transaction(async (m) => {
      const site = await m.findOne(SiteEntity, {
        where: { hostname },
        select: { id: true, country: true, trafficRank: true },
      });
      if (!site) return false;
      const previous = await m.findOne(SiteEnrichmentEntity, {
        where: { siteId: site.id },
        select: { siteId: true, pages: true, updatedAt: true },
      });
      if (
        previous &&
        previous.pages > pages &&
        at.getTime() - previous.updatedAt.getTime() < CRAWL_RECORD_PRECEDENCE_DAYS * 86_400_000
      )
        return false;
      await this.index.upsertEnrichment(m, site.id, JSON.stringify(stored), pages, at);
      await m.update(
        SiteEntity,
        { id: site.id },
        {
          industry: record.enrichment.company.industry?.slice(0, 100) ?? null,
          companySize: record.enrichment.company.companySize ?? null,
          ...(record.country ? { country: record.country.slice(0, 2).toUpperCase() } : {}),
          setsMask: setsMaskOf(record.enrichment),
          enrichedAt: at,
        },
      );
      if (record.country && !site.country)
        await this.trends.countryLearned(m, site, monthOf(at), record.country.slice(0, 2).toUpperCase());
      await m.delete(SiteKeywordEntity, { siteId: site.id });
      if (keywords.length > 0)
        await m.insert(
          SiteKeywordEntity,
          keywords.map((keyword) => ({ keyword, siteId: site.id })),
        );
      return true;
    });
  }

  /** Notes that the service tried to analyse a known site (also when the attempt failed). */
  async recordAttempt(url: string, at: Date): Promise<void> {
    const { hostname } = siteKeyOf(url);
    await this.db.transaction((m) => m.update(SiteEntity, { hostname }, { crawlAttemptedAt: at }));
  }

  /**
   * The stored enriched record of a site, events included (createdAt: first seen, updatedAt: last
   * analysed, crawlAttemptedAt: last attempt, as UNIX seconds); null when it was never enriched.
   */
  async enrichmentOf(site: SiteEntity): Promise<SiteEnrichment | null> {
    // Read on every stored Lookup v2 with sets=: a prepared statement, not the query builder.
    const data = await this.index.enrichmentData(site.id);
    if (data === null) return null;
    const stored = JSON.parse(data) as Omit<SiteEnrichment, 'events'>;
    return { ...stored, events: eventsOf(site) };
  }

  /**
   * The index's rows of these technologies on these sites, in the order asked (null where the site
   * or the technology is not in the index): GraphQL's per-request batch of first-seen times.
   */
  technologiesOn(refs: readonly SiteTechnologyRef[]): Promise<(SiteTechnologyEntity | null)[]> {
    return this.index.technologiesOn(refs);
  }

  /**
   * The versions a site's technologies run now (site_technology_live_versions), with the pages
   * whose latest reading found each; a technology without a known version has none listed.
   */
  async versionsNow(siteId: number): Promise<Map<string, { version: string; pages: string[] }[]>> {
    const out = new Map<string, { version: string; pages: string[] }[]>();
    for (const row of await this.timelineRows.liveVersions(this.db.manager, siteId))
      if (row.version !== '')
        out.set(row.slug, [
          ...(out.get(row.slug) ?? []),
          { version: row.version, pages: parseList(row.evidencePaths) },
        ]);
    return out;
  }

  async currentTechnologies(siteId: number): Promise<SiteTechnologyEntity[]> {
    return this.db.manager.find(SiteTechnologyEntity, {
      where: { siteId },
      order: { confidence: 'DESC', slug: 'ASC' },
    });
  }

  /**
   * Lookup v1's months, from the site's stored history (six months to today). The assembled history
   * of a site is kept in memory (LOOKUP_CACHE_BYTES of them) and used while the site's row says
   * nothing was recorded since (its page-view count and last analysis time, one indexed read):
   * every recorded analysis raises both, in any process, so a cached history is never stale.
   */
  async lookup(
    url: string,
    options: { minConfidence: number; now?: Date },
  ): Promise<readonly LookupMonth[] | null> {
    const { hostname } = siteKeyOf(url);
    const site = await this.siteRows.load(hostname);
    if (!site) return null;
    const now = options.now ?? new Date();
    const from = monthOf(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (LOOKUP_MONTHS - 1), 1)),
    );
    const version = `${site.id} ${site.hits} ${String(site.last_analyzed_at)} ${from}`;
    const history = await this.histories.get(
      hostname,
      version,
      async () => new StoredHistory(await this.readHistory(Number(site.id), from)),
    );
    return history.empty ? null : history.view(options.minConfidence);
  }

  private async readHistory(siteId: number, from: string): Promise<LookupMonth[]> {
    const months = await this.index.historyMonths(siteId, from);
    if (months.length === 0) return [];
    const technologies = await this.index.historyTechnologies(siteId, from);
    return months.map((row) => ({
      monthYear: `${row.month.slice(5, 7)}-${row.month.slice(0, 4)}`,
      languages: parseList(row.languages),
      applications: technologies
        .filter((t) => t.month === row.month)
        .map((t) => ({ ...t, hits: Number(t.hits), confidence: Number(t.confidence) }))
        .sort((a, b) => b.hits - a.hits || a.name.localeCompare(b.name))
        .map((t) => ({
          name: t.name,
          slug: t.slug,
          categories: parseList(t.categories),
          versions: parseList(t.versions),
          hits: t.hits,
          confidence: t.confidence,
        })),
    }));
  }

  private async insertSiteIfMissing(m: EntityManager, key: SiteKey, at: Date): Promise<void> {
    if (await this.index.siteExists(m, key.hostname)) return;
    // A domain of an imported ranked list takes its rank along when it is first analysed, on any port.
    const rank = key.isSubdomain ? null : await this.index.importedRank(m, key.domain);
    await this.index.insertSiteIfMissing(m, {
      hostname: key.hostname,
      domain: key.domain,
      tld: key.tld,
      isSubdomain: key.isSubdomain,
      language: null,
      languages: '[]',
      country: null,
      title: null,
      hits: 0,
      ...(rank !== null ? { trafficRank: rank, rankSource: 'import' as const } : {}),
      firstSeenAt: at,
      lastAnalyzedAt: at,
    });
  }

  private async updateSite(
    m: EntityManager,
    key: SiteKey,
    observation: SiteObservation,
  ): Promise<SiteEntity> {
    const at = observation.at;
    // SQLite runs one transaction at a time (see Database); MySQL/MariaDB need the row lock.
    const site = await this.index.lockedSite(m, key.hostname);
    const root = observation.pages.find((p) => p.isRoot) ?? observation.pages[0];
    const languages = union(
      parseList(site.languages),
      observation.pages.flatMap((p) => p.languages),
      MAX_LANGUAGES,
    );
    const language = root?.languages[0] ?? site.language ?? languages[0] ?? null;
    const title = root?.title?.slice(0, 300) ?? site.title;
    await this.index.recordAnalysis(m, site.id, {
      languages: JSON.stringify(languages),
      language,
      title,
      languageCount: languages.length,
      scheme: new URL(observation.url).protocol === 'http:' ? 'http' : 'https',
      pages: observation.pages.length,
      at,
    });
    const known = new Set(parseList(site.languages));
    for (const added of languages.filter((l) => !known.has(l))) {
      await this.index.insertLanguageIfMissing(m, site.id, added.slice(0, 20));
    }
    return { ...site, languages: JSON.stringify(languages), language, title };
  }

  private async upsertTechnologies(
    m: EntityManager,
    siteId: number,
    observation: SiteObservation,
    timeline: Pick<TimelineStep, 'prior' | 'evidence'>,
  ): Promise<void> {
    if (observation.technologies.length === 0) return;
    // The site's rows as the timeline read them, in this transaction (under the site's lock).
    const existing = new Map(timeline.prior.map((row) => [row.slug, row]));
    const { evidence } = timeline;
    const rootSlugs = new Set(
      observation.pages.filter((p) => p.isRoot).flatMap((p) => p.technologies.map((t) => t.slug)),
    );
    for (const tech of observation.technologies) {
      const row = existing.get(tech.slug);
      const rootPath = rootSlugs.has(tech.slug);
      if (!row) {
        await m.insert(SiteTechnologyEntity, {
          siteId,
          slug: tech.slug,
          name: tech.name.slice(0, 200),
          version: tech.version.slice(0, 60),
          versionKey: versionKeyOf(tech.version),
          versions: JSON.stringify(tech.versions.slice(0, MAX_VERSIONS)),
          confidence: tech.confidence,
          rootPath,
          fingerprintsVersion: observation.fingerprintsVersion ?? '',
          firstSeenAt: observation.at,
          confirmedAt: observation.at,
          live: true,
          evidencePaths: evidence.get(tech.slug) ?? '[]',
        });
        continue;
      }
      const version = (tech.version || row.version).slice(0, 60);
      await m.update(
        SiteTechnologyEntity,
        { id: row.id },
        {
          version,
          versionKey: versionKeyOf(version),
          versions: JSON.stringify(union(tech.versions, parseList(row.versions), MAX_VERSIONS)),
          confidence: tech.confidence,
          rootPath: row.rootPath || rootPath,
          fingerprintsVersion: observation.fingerprintsVersion ?? '',
          confirmedAt: observation.at,
          live: true,
          evidencePaths: evidence.get(tech.slug) ?? row.evidencePaths,
        },
      );
    }
  }

  private async upsertMonth(
    m: EntityManager,
    siteId: number,
    month: string,
    observation: SiteObservation,
  ): Promise<MonthDelta> {
    await this.index.insertMonthIfMissing(m, siteId, month);
    const row = await m.findOneOrFail(SiteMonthEntity, { where: { siteId, month } });
    // A month row is created with no page views: the first analysis of the month finds it so.
    const delta: MonthDelta = {
      newMonth: row.hits === 0,
      technologies: [],
      categories: [],
      versions: [],
      fingerprints: [],
    };
    const languages = union(
      parseList(row.languages),
      observation.pages.flatMap((p) => p.languages),
      MAX_LANGUAGES,
    );
    await this.index.recordMonthPages(m, siteId, month, JSON.stringify(languages), observation.pages.length);
    const slugs = observation.technologies.map((t) => t.slug);
    if (slugs.length === 0) return delta;
    const existing = new Map(
      (await m.find(SiteMonthTechnologyEntity, { where: { siteId, month, slug: In(slugs) } })).map((r) => [
        r.slug,
        r,
      ]),
    );
    const version = observation.fingerprintsVersion ?? '';
    const fresh = observation.technologies.filter((t) => !existing.has(t.slug));
    if (fresh.length > 0) {
      // Categories the month already had through other technologies (none in a new month).
      const had = new Set<string>();
      if (!delta.newMonth)
        for (const other of await m.find(SiteMonthTechnologyEntity, {
          where: { siteId, month },
          select: { categories: true },
        }))
          for (const name of parseList(other.categories)) had.add(name);
      const added = new Set(fresh.flatMap((t) => t.categories.map((c) => c.name.slice(0, 120))));
      delta.categories = [...added].filter((name) => !had.has(name));
    }
    for (const tech of observation.technologies) {
      const pagesSeen = Math.max(
        1,
        observation.pages.filter((p) => p.technologies.some((t) => t.slug === tech.slug)).length,
      );
      const row = existing.get(tech.slug);
      const keptVersions = row ? parseList(row.versions) : [];
      const versions = union(keptVersions, tech.versions, MAX_VERSIONS);
      for (const v of versions.filter((v) => !keptVersions.includes(v)))
        delta.versions.push({ slug: tech.slug, version: v });
      if (version && !(row ? parseList(row.fingerprintsVersions) : []).includes(version))
        delta.fingerprints.push({ slug: tech.slug, version });
      if (!row) {
        delta.technologies.push(tech.slug);
        await m.insert(SiteMonthTechnologyEntity, {
          siteId,
          month,
          slug: tech.slug,
          name: tech.name.slice(0, 200),
          categories: JSON.stringify(tech.categories.map((c) => c.name)),
          versions: JSON.stringify(versions),
          hits: pagesSeen,
          confidence: tech.confidence,
          fingerprintsVersion: version,
          fingerprintsVersions: JSON.stringify(monthVersions([], version)),
        });
        continue;
      }
      await m.update(
        SiteMonthTechnologyEntity,
        { siteId, month, slug: tech.slug },
        {
          versions: JSON.stringify(versions),
          hits: row.hits + pagesSeen,
          confidence: Math.max(row.confidence, tech.confidence),
          fingerprintsVersion: version,
          fingerprintsVersions: JSON.stringify(monthVersions(parseList(row.fingerprintsVersions), version)),
        },
      );
    }
    return delta;
  }
}

/**
 * A month's fingerprint versions after one more observation: `version` moves to the end (most
 * recently used last), at most MONTH_FINGERPRINTS_VERSIONS kept (the least recently used go); an
 * unrecorded version ('') is not listed.
 */
export function monthVersions(kept: readonly string[], version: string): string[] {
  if (!version) return [...kept];
  return [...kept.filter((v) => v !== version), version].slice(-MONTH_FINGERPRINTS_VERSIONS);
}

export function monthOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

/** A JSON list column's strings (anything else in it is ignored; malformed JSON is an empty list). */
export function parseList(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Keywords as the lists' keyword filter matches them: single lowercase a-z0-9 words (accents
 * folded), 2 to 60 characters, each once, at most MAX_KEYWORDS.
 */
export function keywordTokens(keywords: readonly string[]): string[] {
  const tokens = new Set<string>();
  for (const keyword of keywords) {
    const folded = keyword
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    for (const token of folded.split(/[^a-z0-9]+/)) {
      if (token.length >= 2 && token.length <= 60) tokens.add(token);
      if (tokens.size >= MAX_KEYWORDS) return [...tokens];
    }
  }
  return [...tokens];
}

/** The events set of a site, from its row: first seen, last analysed, last tried (UNIX seconds). */
export function eventsOf(site: SiteEntity): EventsSet {
  const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : undefined);
  return dropUndefined({
    createdAt: seconds(site.firstSeenAt),
    updatedAt: seconds(site.lastAnalyzedAt),
    crawlAttemptedAt: seconds(site.crawlAttemptedAt),
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function union(a: readonly string[], b: readonly string[], max: number): string[] {
  return [...new Set([...a, ...b].filter(Boolean))].slice(0, max);
}
