import type { Fingerprints } from '../../detection';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { Database } from '../../storage/database';
import type {
  SiteEntity,
  SiteTechnologyEntity,
  SiteTechnologyLiveVersionEntity,
  SiteTechnologyVersionEntity,
} from '../../storage/entities';
import { inVersionOrder } from '../vulns/version-compare';
import { TechnologyTimelineRepository, type ChangeQuery } from '../../storage/technology-timeline.repository';
import { ValidationError } from '../../errors';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import { siteKeyOf } from '../site-index/site-key';
import type { RecordedChange } from '../site-index/timeline-writer';
import {
  changeVulnerabilityOf,
  DEFAULT_CHANGE_KINDS,
  type ChangeFilterInput,
  type ChangeKind,
  type ChangePageSource,
  type ChangesInput,
  type SiteFilter,
} from './changes.contract';

/** 1 credit per 10 changes returned, rounded up over the request; an empty page is free. */
export function changeCredits(returned: number): number {
  return Math.ceil(returned / 10) * CREDIT_PRICES.changes.credits;
}

/** A filter with its categories resolved to technologies, as the feed and the subscription apply it. */
export interface ResolvedChangeFilter {
  domains: string[];
  hostnames: string[];
  /** null: any technology. */
  slugs: Set<string> | null;
  /** Empty: DEFAULT_CHANGE_KINDS (`vulnerability` only when named). */
  kinds: ChangeKind[];
  since?: number;
  until?: number;
}

/** A technology of a site with its timeline. */
export interface TechnologyTimeline {
  slug: string;
  name: string;
  version: string;
  /** 0-100, the analysis that last confirmed it. */
  confidence: number;
  live: boolean;
  firstSeenAt: Date;
  lastSeenAt: Date;
  removedAt: Date | null;
  /** Pages whose latest reading found it (see technology-timeline.ts). */
  evidencePaths: string[];
  versions: { version: string; firstSeenAt: Date; lastSeenAt: Date }[];
  /** The versions on the site now, in version order (empty: none known, or no longer on the site). */
  currentVersions: string[];
}

export interface SiteTimeline {
  hostname: string;
  domain: string;
  firstSeenAt: Date;
  lastAnalyzedAt: Date;
  technologies: TechnologyTimeline[];
  /** Its row of the index (what the graph's other fields of the site read). */
  site: SiteEntity;
}

/**
 * The change feed and the site timeline, read from what the site index writes with each analysis
 * (timeline-writer.ts). Filters are checked against the catalogue (an unknown technology or
 * category is a 400 naming it); categories become the technologies they hold.
 */
export class ChangeFeedService {
  private readonly repository: TechnologyTimelineRepository;
  private readonly fingerprints: () => Fingerprints;

  constructor(
    db: Database,
    private readonly metering: MeteringService,
    engines: EngineSource,
  ) {
    this.repository = new TechnologyTimelineRepository(db);
    this.fingerprints = fingerprintsOf(engines);
  }

  /** One page of the feed, oldest first. Charged after the read for the changes returned. */
  async feed(caller: Caller, input: ChangesInput): Promise<ChangePageSource> {
    const filter = this.resolve(input);
    return this.metering.run(
      caller,
      {
        minimumCost: 0,
        cost: (page) => changeCredits(page.changes.length),
        reason: CREDIT_PRICES.changes.endpoint,
        readOnly: true,
      },
      () => this.page(filter, input.first, input.after),
    );
  }

  /** The filter checked against the catalogue; its problems name the field. */
  resolve(input: Partial<ChangeFilterInput>): ResolvedChangeFilter {
    const fingerprints = this.fingerprints();
    const sites: SiteFilter[] = input.domains ?? [];
    const technologies = input.technologies ?? [];
    const categories = input.categories ?? [];
    technologies.forEach((slug, i) => {
      if (!fingerprints.technologyBySlug(slug))
        throw new ValidationError('technologies', `technologies[${i}]: unknown technology ${slug}`);
    });
    let slugs: Set<string> | null = null;
    if (technologies.length || categories.length) {
      slugs = new Set(technologies);
      categories.forEach((slug, i) => {
        if (!fingerprints.categoryBySlug(slug))
          throw new ValidationError('categories', `categories[${i}]: unknown category ${slug}`);
        for (const tech of fingerprints.technologiesInCategory(slug)) slugs!.add(tech.slug);
      });
    }
    if (input.since !== undefined && input.until !== undefined && input.until <= input.since)
      throw new ValidationError('until', 'until: must be later than since');
    return {
      domains: [...new Set(sites.filter((s) => s.domain !== null).map((s) => s.domain!))],
      hostnames: [...new Set(sites.filter((s) => s.domain === null).map((s) => s.hostname))],
      slugs,
      kinds: (input.kinds ?? []) as ChangeKind[],
      since: input.since,
      until: input.until,
    };
  }

  /**
   * A stored filter (a monitor's) as resolve() makes it, leaving out the technologies and
   * categories the active fingerprints no longer know (a pack was switched since it was stored);
   * null when it named some and none is known now: it then matches nothing.
   */
  resolveStored(input: Partial<ChangeFilterInput>): ResolvedChangeFilter | null {
    const fingerprints = this.fingerprints();
    const technologies = (input.technologies ?? []).filter((s) => fingerprints.technologyBySlug(s));
    const categories = (input.categories ?? []).filter((s) => fingerprints.categoryBySlug(s));
    const named = (input.technologies ?? []).length + (input.categories ?? []).length;
    if (named > 0 && technologies.length + categories.length === 0) return null;
    return this.resolve({ ...input, technologies, categories });
  }

  /** Whether a committed change passes a filter (the subscription's test). */
  matches(filter: ResolvedChangeFilter, change: RecordedChange): boolean {
    if (filter.domains.length || filter.hostnames.length) {
      if (!filter.domains.includes(change.domain) && !filter.hostnames.includes(change.hostname))
        return false;
    }
    if (filter.slugs && !filter.slugs.has(change.slug)) return false;
    if (!kindsOf(filter).includes(change.kind)) return false;
    if (filter.since !== undefined && change.at < filter.since * 1000) return false;
    if (filter.until !== undefined && change.at >= filter.until * 1000) return false;
    return true;
  }

  private async page(filter: ResolvedChangeFilter, limit: number, after?: string): Promise<ChangePageSource> {
    const query: ChangeQuery = {
      domains: filter.domains,
      hostnames: filter.hostnames,
      slugs: filter.slugs ? [...filter.slugs] : null,
      kinds: kindsOf(filter),
      since: filter.since !== undefined ? new Date(filter.since * 1000) : undefined,
      until: filter.until !== undefined ? new Date(filter.until * 1000) : undefined,
      afterId: after !== undefined ? Number(after) : undefined,
      take: limit + 1,
    };
    // A category with no technology matches nothing.
    if (query.slugs && query.slugs.length === 0) return { changes: [], moreAfter: null };
    const rows = await this.repository.changes(query);
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    const fingerprints = this.fingerprints();
    return {
      changes: page.map((r) => ({
        id: r.id,
        hostname: r.hostname,
        slug: r.slug,
        name: fingerprints.technologyBySlug(r.slug)?.name ?? r.slug,
        kind: r.kind,
        fromVersion: r.fromVersion,
        toVersion: r.toVersion,
        fingerprintsVersion: r.fingerprintsVersion,
        at: r.at.getTime(),
        ...(r.vulnerability ? { vulnerability: changeVulnerabilityOf(r.vulnerability) } : {}),
      })),
      moreAfter: more ? String(page[page.length - 1].id) : null,
    };
  }

  /**
   * A site of the index with its technologies' timelines (live ones first), or null when it is
   * not in the index. 1 credit when found, like a stored lookup; nothing when not.
   */
  async site(caller: Caller, domain: string): Promise<SiteTimeline | null> {
    let hostname: string;
    try {
      hostname = siteKeyOf(`http://${domain.trim()}`).hostname;
    } catch {
      throw new ValidationError('domain', `domain: ${domain} is not a domain name`);
    }
    return this.metering.run(
      caller,
      {
        minimumCost: 0,
        cost: (found) => (found ? CREDIT_PRICES.siteTimeline.credits : 0),
        reason: CREDIT_PRICES.siteTimeline.endpoint,
        readOnly: true,
      },
      async () => {
        const site = await this.repository.site(hostname);
        return site ? this.timelineOf(site) : null;
      },
    );
  }

  private async timelineOf(site: SiteEntity): Promise<SiteTimeline> {
    const { technologies, versions, liveVersions } = await this.repository.timeline(site.id);
    return {
      hostname: site.hostname,
      domain: site.domain,
      firstSeenAt: site.firstSeenAt,
      lastAnalyzedAt: site.lastAnalyzedAt,
      technologies: technologyTimelines(technologies, versions, liveVersions),
      site,
    };
  }
}

/** The kinds a filter passes: those it names, else the default ones. */
function kindsOf(filter: ResolvedChangeFilter): readonly ChangeKind[] {
  return filter.kinds.length ? filter.kinds : DEFAULT_CHANGE_KINDS;
}

/**
 * A site's technology rows, version sightings and versions on the site now as timelines, in the
 * order of the rows.
 */
export function technologyTimelines(
  technologies: readonly SiteTechnologyEntity[],
  versions: readonly SiteTechnologyVersionEntity[],
  liveVersions: readonly Pick<SiteTechnologyLiveVersionEntity, 'slug' | 'version'>[],
): TechnologyTimeline[] {
  const bySlug = new Map<string, SiteTechnologyVersionEntity[]>();
  for (const v of versions) bySlug.set(v.slug, [...(bySlug.get(v.slug) ?? []), v]);
  const current = new Map<string, string[]>();
  for (const v of liveVersions)
    if (v.version !== '') current.set(v.slug, [...(current.get(v.slug) ?? []), v.version]);
  return technologies.map((t) => ({
    slug: t.slug,
    name: t.name,
    version: t.version,
    confidence: t.confidence,
    live: t.live,
    firstSeenAt: t.firstSeenAt,
    lastSeenAt: t.confirmedAt,
    removedAt: t.removedAt,
    evidencePaths: parsePaths(t.evidencePaths),
    // The current version's last sighting is the technology's (see technology-timeline.ts).
    versions: (bySlug.get(t.slug) ?? []).map((v) => ({
      version: v.version,
      firstSeenAt: v.firstSeenAt,
      lastSeenAt: v.version === t.version && t.confirmedAt > v.lastSeenAt ? t.confirmedAt : v.lastSeenAt,
    })),
    currentVersions: t.live ? inVersionOrder(current.get(t.slug) ?? []) : [],
  }));
}

function parsePaths(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
