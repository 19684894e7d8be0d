import { Database } from '../../storage/database';
import {
  LeadListCalculatorRepository,
  type AffectedVersions,
  type ListFilter,
  type MaskCount,
} from '../../storage/lead-list-calculator.repository';
import { ENRICHMENT_SETS } from '../../enrichment';
import { setsMaskFor } from '../analysis/site-sets';
import type { ListRequest } from './lead-list-request';
import { versionKeyRange } from '../site-index/version-key';

/** What a calculation found: websites per technology, per field set, and in all. */
export interface ListCounts {
  rows: Record<string, number>;
  setRows: Record<string, number>;
  websites: number;
}

/** Technologies per INSERT … SELECT (a category list of 100 takes four statements). */
const TECHS_PER_STATEMENT = 25;

/** subdomains=merge: at most this many sites of a domain are merged into its row (its own site first). */
export const MERGE_SITES_PER_DOMAIN = 100;

/** months ago, in UTC calendar months (the lookup's age window). */
function monthsAgo(now: Date, months: number): Date {
  const at = new Date(now);
  at.setUTCMonth(at.getUTCMonth() - months);
  return at;
}

/**
 * A list's request in the terms of the index's columns: version filters as version-key ranges
 * (version-key.ts), the age window as times, `not …` keywords apart, required sets as a mask.
 */
export function listFilterOf(
  request: ListRequest,
  now: Date,
  affected: AffectedVersions | null = null,
): ListFilter {
  return {
    technologies: request.technologies.map((tech) => ({
      slug: tech.slug,
      version: tech.version === null ? null : (versionKeyRange(tech.operator, tech.version) ?? {}),
    })),
    matchTechnologies: request.matchTechnologies,
    rootPath: request.rootPath,
    from: monthsAgo(now, request.maxAge),
    to: monthsAgo(now, request.minAge),
    countries: request.countries,
    languages: request.languages,
    matchCountryLanguage: request.matchCountryLanguage,
    tlds: request.tlds,
    languageOrTld: Boolean(request.languageOrTld),
    keywords: request.keywords.filter((k) => !k.startsWith('not ')),
    notKeywords: request.keywords.filter((k) => k.startsWith('not ')).map((k) => k.slice(4)),
    industries: request.industries,
    companySizes: request.companySizes,
    firstSeenAfter: request.fromDate === null ? null : new Date(request.fromDate * 1000),
    requiredSetsMask: request.requiredSets.length ? setsMaskFor(request.requiredSets) : null,
    subdomains: request.subdomains,
    excludeNoTraffic: request.excludeNoTraffic,
    excludeMultilingual: request.excludeMultilingual,
    excludeListIds: request.excludeListIds,
    baseListId: request.baseListId,
    subset: request.subset,
    subsetSlice: request.subsetSlice,
    affected,
  };
}

/**
 * Computes a list as set-based SQL over the index (LeadListCalculatorRepository: the same
 * statements on SQLite and MariaDB), in groups of technologies; subdomains=merge first collects
 * every matching (technology, site) as candidates, then keeps one representative site per
 * registrable domain for the whole list. Nothing is loaded into memory. Then the counts: rows per
 * technology, websites per requested field set, websites in all.
 */
export class LeadListCalculator {
  private readonly statements: LeadListCalculatorRepository;

  constructor(db: Database) {
    this.statements = new LeadListCalculatorRepository(db);
  }

  /** `affected`: what a `vulnerabilities` filter keeps (null: no such filter). */
  async calculate(
    listId: string,
    request: ListRequest,
    now: Date,
    affected: AffectedVersions | null = null,
  ): Promise<ListCounts> {
    const filter = listFilterOf(request, now, affected);
    await this.statements.clearSites(listId);
    const techs = request.matchTechnologies === 'not' ? filter.technologies.slice(0, 1) : filter.technologies;
    const merge = request.subdomains === 'merge';
    if (merge) await this.statements.clearCandidates(listId);
    // Technologies in groups of TECHS_PER_STATEMENT: each statement is its own short transaction
    // (on SQLite one write), so crawls writing to the index wait for one group at most.
    for (let i = 0; i < techs.length; i += TECHS_PER_STATEMENT) {
      await this.statements.insertMatches(listId, techs.slice(i, i + TECHS_PER_STATEMENT), filter);
    }
    if (merge) {
      await this.statements.insertMerged(listId, filter);
      await this.statements.clearCandidates(listId);
    }
    return this.counts(listId, request);
  }

  async counts(listId: string, request: ListRequest): Promise<ListCounts> {
    const rows: Record<string, number> = {};
    for (const tech of request.technologies) rows[tech.slug] = 0;
    for (const row of await this.statements.rowsPerTechnology(listId)) rows[row.slug] = row.n;
    if (request.matchTechnologies === 'not')
      for (const tech of request.technologies.slice(1)) delete rows[tech.slug];
    // With subdomains=merge a domain holds a set when one of its merged sites (at most
    // MERGE_SITES_PER_DOMAIN, its representative first) does: the mask is OR-ed over them.
    const masks: MaskCount[] =
      request.sets.length === 0
        ? await this.statements.websites(listId)
        : request.subdomains === 'merge'
          ? await this.statements.mergedWebsitesPerSetsMask(
              listId,
              request.sets.map((set) => 1 << ENRICHMENT_SETS.indexOf(set)),
              MERGE_SITES_PER_DOMAIN,
            )
          : await this.statements.websitesPerSetsMask(listId);
    let websites = 0;
    const setRows: Record<string, number> = {};
    for (const set of request.sets) setRows[set] = 0;
    for (const row of masks) {
      const n = row.n;
      websites += n;
      for (const set of request.sets) if (row.mask & (1 << ENRICHMENT_SETS.indexOf(set))) setRows[set] += n;
    }
    return { rows, setRows, websites };
  }
}
