import type { Fingerprints } from '../../detection';
import { NotFoundError } from '../../errors';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { VulnerabilityRow } from '../../storage/vulnerability.repository';
import type { VulnerabilityRepository } from '../../storage/vulnerability.repository';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import type { StoredSiteReader } from '../lookup/stored-site-reader';
import {
  fixedVersionsOf,
  isAffected,
  matchVersion,
  type AffectedSpec,
  type MatchCertainty,
} from './affected-ranges';
import type {
  ExposedSitesPage,
  ExposureItem,
  SiteMatches,
  TechnologyVulnerability,
  Vulnerability,
} from './exposure.contract';
import { productKeysFor, technologiesForProduct } from './technology-products';
import { inVersionOrder, isComparable } from './version-compare';

/** The reverse query's filters and page. */
export interface ExposedSitesQuery {
  countries?: string[];
  rank?: string;
  /** Which sites: running an affected version (the default), possibly affected, or both. */
  match?: SiteMatches;
  first: number;
  after?: string;
}

/** 1 credit per 10 sites returned, rounded up; an empty page is free. */
export function exposedSitesCredits(returned: number): number {
  return Math.ceil(returned / 10) * CREDIT_PRICES.exposureSites.credits;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A stored record in the published form. */
export function vulnerabilityOf(row: VulnerabilityRow, extraAliases: string[] = []): Vulnerability {
  const aliases = [...new Set([...row.aliases, ...extraAliases])].filter((a) => a !== row.id).sort();
  return {
    id: row.id,
    aliases,
    ...(row.severity ? { severity: row.severity } : {}),
    ...(row.scoreTenths !== null ? { score: row.scoreTenths / 10 } : {}),
    ...(row.vector ? { vector: row.vector } : {}),
    summary: row.summary,
    ...(row.publishedAt ? { published: seconds(row.publishedAt) } : {}),
    modified: seconds(row.modifiedAt),
    references: row.references,
  };
}

/** Records of one vulnerability (a CVE and the GHSA that aliases it) as one answer: NVD's first. */
function mergeAliased(matches: (TechnologyVulnerability & { source: string })[]): TechnologyVulnerability[] {
  const ordered = [...matches].sort((a, b) =>
    a.source === b.source ? a.id.localeCompare(b.id) : a.source === 'nvd' ? -1 : 1,
  );
  const groups: TechnologyVulnerability[] = [];
  const groupOf = new Map<string, TechnologyVulnerability>();
  for (const { source: _source, ...m } of ordered) {
    const names = [m.id, ...m.aliases];
    const group = names.map((n) => groupOf.get(n)).find((g) => g !== undefined);
    if (!group) {
      const fresh = {
        ...m,
        aliases: [...m.aliases],
        fixedVersions: [...m.fixedVersions],
        versions: [...m.versions],
      };
      groups.push(fresh);
      for (const n of names) groupOf.set(n, fresh);
      continue;
    }
    group.aliases = [...new Set([...group.aliases, ...names])].filter((a) => a !== group.id).sort();
    group.fixedVersions = [...new Set([...group.fixedVersions, ...m.fixedVersions])];
    // The versions said are those of the group's match: a certain record's replace a possible one's.
    if (m.match === group.match)
      group.versions = inVersionOrder([...new Set([...group.versions, ...m.versions])]);
    else if (m.match === 'certain') group.versions = m.versions;
    if (m.match === 'certain') group.match = 'certain';
    if (group.score === undefined && m.score !== undefined) {
      group.score = m.score;
      group.severity = m.severity;
      group.vector = m.vector;
    }
    for (const n of names) groupOf.set(n, group);
  }
  return groups.sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || a.id.localeCompare(b.id));
}

/**
 * Exposure (issue 33 §3): the vulnerabilities of a site's live technologies (GET /v2/exposure/,
 * GraphQL's technology `vulnerabilities`), and the reverse query, the sites running an affected
 * version (GET /v2/exposure/sites/, GraphQL vulnerability(id).affectedSites).
 *
 * A technology is matched to records by its product keys (technology-products.ts: the CPE
 * vendor:product, the OSV package); a detected version inside a range is `certain`; a technology
 * without a comparable version is `possible`, never certain.
 */
export class ExposureService {
  private readonly fingerprints: () => Fingerprints;

  constructor(
    private readonly repository: VulnerabilityRepository,
    private readonly reader: StoredSiteReader,
    private readonly metering: MeteringService,
    engines: EngineSource,
  ) {
    this.fingerprints = fingerprintsOf(engines);
  }

  /**
   * The vulnerabilities of several technologies at the versions a site runs (none, or only '': no
   * version detected; each version judged), read in one go (a site's exposure, an SBOM's
   * components, the technologies of a GraphQL answer), in the order given; `imported` says whether
   * any vulnerability data is imported at all (the SBOM has no VEX section without).
   */
  async vulnerabilitiesOfAll(
    technologies: readonly { slug: string; versions: readonly string[] }[],
  ): Promise<{ imported: boolean; found: TechnologyVulnerability[][] }> {
    const fingerprints = this.fingerprints();
    const keysOf = technologies.map((t) => productKeysFor(t.slug, fingerprints));
    const { imported, rows } = await this.repository.affecting([...new Set(keysOf.flat())]);
    const found = technologies.map((t, i) => {
      const keys = new Set(keysOf[i]);
      const byId = new Map<string, { row: VulnerabilityRow; specs: AffectedSpec[] }>();
      for (const row of rows) {
        if (!keys.has(row.product)) continue;
        const entry = byId.get(row.id) ?? { row, specs: [] };
        entry.specs.push(JSON.parse(row.spec) as AffectedSpec);
        byId.set(row.id, entry);
      }
      return this.matchesAt(byId, t.versions);
    });
    return { imported, found };
  }

  /**
   * The records matching any of the versions a site runs (none: no version detected): certain when
   * one of them is in a range, naming the versions that are (a theme's jQuery 1.12.4 affected, a
   * plugin's 3.6.0 not), else possible.
   */
  private matchesAt(
    byId: Map<string, { row: VulnerabilityRow; specs: AffectedSpec[] }>,
    versions: readonly string[],
  ): TechnologyVulnerability[] {
    const detected = versions.filter((v) => v !== '');
    const judged = detected.length > 0 ? detected : [''];
    const matches: (TechnologyVulnerability & { source: string })[] = [];
    for (const { row, specs } of byId.values()) {
      const byMatch = { certain: [] as string[], possible: [] as string[] };
      for (const version of judged) {
        const results = specs.map((spec) => matchVersion(spec, version));
        if (results.includes('certain')) byMatch.certain.push(version);
        else if (results.includes('possible')) byMatch.possible.push(version);
      }
      const match = byMatch.certain.length > 0 ? 'certain' : byMatch.possible.length > 0 ? 'possible' : null;
      if (!match) continue;
      matches.push({
        ...vulnerabilityOf(row),
        source: row.source,
        match,
        fixedVersions: [...new Set(specs.flatMap(fixedVersionsOf))],
        versions: inVersionOrder(byMatch[match].filter((v) => v !== '')),
      });
    }
    return mergeAliased(matches);
  }

  /** GET /v2/exposure/: per URL, from the index; 1 credit per URL found there. */
  async exposure(caller: Caller, urls: string[]): Promise<ExposureItem[]> {
    const unique = [...new Set(urls)];
    return this.metering.run(
      caller,
      {
        minimumCost: 0,
        cost: (items) => items.filter((i) => i.domain !== undefined).length * CREDIT_PRICES.exposure.credits,
        reason: CREDIT_PRICES.exposure.endpoint,
        readOnly: true,
      },
      async () => {
        const out: ExposureItem[] = [];
        for (const url of unique) out.push(await this.siteExposure(url));
        return out;
      },
    );
  }

  private async siteExposure(url: string): Promise<ExposureItem> {
    const site = await this.reader.site(url);
    if (!site) return { url, technologies: [], errors: ['The site is not in the index'] };
    const technologies: ExposureItem['technologies'] = [];
    const fingerprints = this.fingerprints();
    const live = await this.repository.liveTechnologies(site.id);
    const { found } = await this.vulnerabilitiesOfAll(live);
    for (const [i, t] of live.entries()) {
      const vulnerabilities = found[i];
      if (vulnerabilities.length === 0) continue;
      const versions = inVersionOrder(t.versions.filter((v) => v !== ''));
      const version = versions.includes(t.version) ? t.version : versions[0];
      technologies.push({
        technology: t.slug,
        name: fingerprints.technologyBySlug(t.slug)?.name ?? t.name,
        ...(version ? { version } : {}),
        versions,
        vulnerabilities,
      });
    }
    return { url, domain: site.hostname, technologies };
  }

  /** The records an id names (its own record, and those aliasing it), merged as one; 404 when none. */
  async vulnerability(
    id: string,
  ): Promise<{ vulnerability: Vulnerability; pairs: () => Promise<AffectedPair[]> }> {
    const records = await this.repository.named(id);
    if (records.length === 0) throw new NotFoundError(`No imported vulnerability is named ${id}`);
    const main = records.find((r) => r.id === id) ?? records[0];
    const vulnerability = vulnerabilityOf(
      main,
      records.flatMap((r) => [r.id, ...r.aliases]),
    );
    return { vulnerability, pairs: () => this.affectedPairs(this.specsBySlug(records)) };
  }

  /**
   * What the records an id names affect in the index: the technologies their products stand for,
   * and the (technology, version) pairs of the index inside their ranges (with `possible`, also the
   * versions without a number to compare: technologies found without a version). Null when nothing
   * is imported under the id. The lead lists' `vulnerabilities` filter reads it.
   */
  async affectedVersionsOf(
    id: string,
    possible: boolean,
  ): Promise<{ slugs: string[]; pairs: AffectedPair[] } | null> {
    const records = await this.repository.named(id);
    if (records.length === 0) return null;
    const specsBySlug = this.specsBySlug(records);
    const pairs = await this.affectedPairs(specsBySlug);
    return {
      slugs: [...specsBySlug.keys()],
      pairs: possible ? pairs : pairs.filter((pair) => pair.match === 'certain'),
    };
  }

  /**
   * One stored record (by its own id) for checking versions one at a time: its published form
   * (with the aliases of the records naming it), the technologies it names, and how a version of
   * one of them matches (certain, possible, or null: not affected). Null when no record has the id.
   * Monitors' vulnerability changes read it.
   */
  async recordMatcher(id: string): Promise<RecordMatcher | null> {
    const records = await this.repository.named(id);
    const own = records.find((r) => r.id === id);
    if (!own) return null;
    const specsBySlug = this.specsBySlug([own]);
    return {
      vulnerability: vulnerabilityOf(
        own,
        records.flatMap((r) => [r.id, ...r.aliases]),
      ),
      slugs: [...specsBySlug.keys()],
      match: (slug, version) => {
        const results = (specsBySlug.get(slug) ?? []).map((spec) => matchVersion(spec, version));
        return results.includes('certain') ? 'certain' : results.includes('possible') ? 'possible' : null;
      },
    };
  }

  /** Per technology the records' products stand for, the records' affected specs. */
  private specsBySlug(
    records: { products: { product: string; spec: string }[] }[],
  ): Map<string, AffectedSpec[]> {
    const fingerprints = this.fingerprints();
    const specsBySlug = new Map<string, AffectedSpec[]>();
    for (const record of records)
      for (const p of record.products)
        for (const slug of technologiesForProduct(p.product, fingerprints))
          specsBySlug.set(slug, [...(specsBySlug.get(slug) ?? []), JSON.parse(p.spec) as AffectedSpec]);
    return specsBySlug;
  }

  /**
   * The (technology, version) pairs of the index inside the records' ranges: per technology, the
   * versions present in the index, each checked in the scheme (certain when inside a range); a
   * version without a number ('' included) is a possible match of every record of the product.
   */
  private async affectedPairs(specsBySlug: Map<string, AffectedSpec[]>): Promise<AffectedPair[]> {
    const pairs: AffectedPair[] = [];
    for (const [slug, specs] of specsBySlug)
      for (const version of await this.repository.versionsOf(slug)) {
        if (!isComparable(version)) pairs.push({ slug, version, match: 'possible' });
        else if (specs.some((spec) => isAffected(spec, version)))
          pairs.push({ slug, version, match: 'certain' });
      }
    return pairs;
  }

  /** GET /v2/exposure/sites/: one page; 1 credit per 10 sites returned. */
  async exposedSites(caller: Caller, id: string, query: ExposedSitesQuery): Promise<ExposedSitesPage> {
    const named = await this.vulnerability(id);
    return this.metering.run(
      caller,
      {
        minimumCost: 0,
        cost: (page) => exposedSitesCredits(page.sites.length),
        reason: CREDIT_PRICES.exposureSites.endpoint,
        readOnly: true,
      },
      async () => ({ vulnerability: named.vulnerability, ...(await this.page(await named.pairs(), query)) }),
    );
  }

  /** A page of the sites running any of the pairs the query's `match` asks for, in site id order. */
  async page(
    pairs: AffectedPair[],
    query: ExposedSitesQuery,
  ): Promise<Pick<ExposedSitesPage, 'sites' | 'moreAfter'>> {
    const wanted = query.match ?? 'certain';
    const versions = pairs.filter((p) => wanted === 'any' || p.match === wanted);
    const matchOf = new Map(versions.map((p) => [`${p.slug}\n${p.version}`, p.match]));
    const { rows, more } = await this.repository.runningSites({
      versions,
      countries: query.countries ?? [],
      maxRank: query.rank ? Number(query.rank) : null,
      afterSiteId: query.after ? Number(query.after) : 0,
      sites: query.first,
    });
    const fingerprints = this.fingerprints();
    const sites: ExposedSitesPage['sites'] = [];
    // A site running two matched versions of a technology is listed once, with both.
    const matched = new Map<string, { match: MatchCertainty; versions: string[] }>();
    let last = 0;
    for (const row of rows) {
      const match = matchOf.get(`${row.slug}\n${row.version}`) ?? 'certain';
      if (last !== row.siteId) {
        last = row.siteId;
        matched.clear();
        sites.push({
          domain: row.hostname,
          ...(row.country ? { country: row.country } : {}),
          ...(row.trafficRank !== null ? { trafficRank: row.trafficRank } : {}),
          technologies: [],
        });
      }
      const seen = matched.get(row.slug) ?? { match, versions: [] };
      if (match === 'certain') seen.match = 'certain';
      if (row.version !== '') seen.versions.push(row.version);
      matched.set(row.slug, seen);
      const technologies = sites[sites.length - 1].technologies;
      const versions = inVersionOrder(seen.versions);
      const technology = {
        technology: row.slug,
        name: fingerprints.technologyBySlug(row.slug)?.name ?? row.slug,
        // Published as the per-URL answer does: no version when none was detected.
        ...(versions.length > 0 ? { version: versions[0] } : {}),
        versions,
        match: seen.match,
      };
      const at = technologies.findIndex((t) => t.technology === row.slug);
      if (at >= 0) technologies[at] = technology;
      else technologies.push(technology);
    }
    return more && last > 0 ? { sites, moreAfter: String(last) } : { sites };
  }
}

/** A record, ready to check versions against (ExposureService.recordMatcher). */
export interface RecordMatcher {
  vulnerability: Vulnerability;
  slugs: string[];
  match(slug: string, version: string): MatchCertainty | null;
}

/** A technology and a version of it that the index holds and a record affects. */
export interface AffectedPair {
  slug: string;
  version: string;
  match: MatchCertainty;
}
