import { COMPANY_SIZES, ENRICHMENT_SETS, type EnrichmentSet } from '../../enrichment';
import type { VersionOperator } from '../site-index/version-key';
import type { ListCreateInput } from './lists.contract';

/**
 * The request of POST /v2/lists: one schema for the REST body and GraphQL's ListCreateInput, each
 * field with its bounds, default and messages (a bad value names the field: technologies[2].version,
 * keywords[0], ...). What needs the database or the catalogue (known slugs, category expansion,
 * referenced lists, the callback URL's address) is checked by LeadListService on top of this.
 */
export const MAX_TECHNOLOGIES = 100;
export const MAX_CATEGORIES = 20;
/** Technologies a category contributes: its most used ones in the index. */
export const CATEGORY_TOP = 100;
export const MAX_VALUES = 100;
/** Vulnerability ids a list may name (each resolves to the affected versions in the index). */
export const MAX_VULNERABILITIES = 20;
export const MAX_SUBSET = 10_000_000;
export const MATCH_TECHNOLOGIES = ['or', 'and', 'not'] as const;
export const SUBDOMAIN_MODES = ['include', 'exclude', 'merge'] as const;
export const LIST_FORMATS = ['csv', 'json'] as const;
export const VERSION_OPERATORS = ['=', '>=', '<='] as const;

export type MatchTechnologies = (typeof MATCH_TECHNOLOGIES)[number];
export type SubdomainMode = (typeof SUBDOMAIN_MODES)[number];
export type ListFormat = (typeof LIST_FORMATS)[number];

/** A technology of the list: one file, one `rows` entry. */
export interface ListTechnology {
  slug: string;
  operator: VersionOperator;
  /** null: any version (and sites without a known version). */
  version: string | null;
  /** Asked for by name (false: contributed by a category). */
  explicit: boolean;
}

export interface ListRequest {
  technologies: ListTechnology[];
  categories: string[];
  keywords: string[];
  languages: string[];
  countries: string[];
  industries: string[];
  companySizes: string[];
  tlds: string[];
  matchCountryLanguage: boolean;
  matchTechnologies: MatchTechnologies;
  rootPath: boolean;
  subset: number | null;
  subsetSlice: number;
  minAge: number;
  maxAge: number;
  fromDate: number | null;
  requiredSets: EnrichmentSet[];
  subdomains: SubdomainMode;
  excludeNoTraffic: boolean;
  excludeMultilingual: boolean;
  excludeListId: string | null;
  /** excludeListId and, recursively, the lists it excluded (resolved at creation). */
  excludeListIds: string[];
  baseListId: string | null;
  /** Imported vulnerability ids or aliases (an extension): only sites running an affected version. */
  vulnerabilities?: string[];
  /** With vulnerabilities: technologies found without a version count too (possibly affected). */
  possiblyAffected?: boolean;
  sets: EnrichmentSet[];
  callbackUrl: string | null;
  format: ListFormat;
  /** Datasets' matchLanguageTld false: a site matches by its language or by its TLD (lists: both). */
  languageOrTld?: boolean;
}

/**
 * What the lists' `vulnerabilities` filter reads from the imported vulnerability data (the reverse
 * query's matching, ExposureService.affectedVersionsOf): for an id, the technologies its records
 * name and the (technology, version) pairs of the index they affect; null when nothing is imported
 * under the id.
 */
export interface AffectedVersionSource {
  affectedVersionsOf(
    id: string,
    possible: boolean,
  ): Promise<{ slugs: string[]; pairs: { slug: string; version: string }[] } | null>;
}

export const LIST_ID_PATTERN = /^lst_[a-z0-9]{1,36}$/;

/** Company size codes: a label (1001-5000) or the upper bound of its range (5000); 10001+ for the last. */
export function companySizeLabel(value: string): string | null {
  const text = value.trim();
  for (const [label, max] of COMPANY_SIZES) {
    if (text === label || (Number.isFinite(max) && text === String(max))) return label;
  }
  if (text === '10001') return '10001+';
  return null;
}

/** The sets a request names (`all` is every set). */
function setsOf(names: readonly string[] | undefined): EnrichmentSet[] {
  if (!names) return [];
  if (names.includes('all')) return [...ENRICHMENT_SETS];
  return names as EnrichmentSet[];
}

/** The list request as the service keeps it, from what the schema parsed. */
export function toListRequest(input: ListCreateInput): ListRequest {
  return {
    technologies: (input.technologies ?? []).map((t) => ({
      slug: t.slug,
      operator: (t.operator ?? '=') as VersionOperator,
      version: t.version ?? null,
      explicit: true,
    })),
    categories: input.categories ?? [],
    keywords: input.keywords ?? [],
    languages: input.languages ?? [],
    countries: input.countries ?? [],
    industries: input.industries ?? [],
    companySizes: input.companySizes ?? [],
    tlds: input.tlds ?? [],
    matchCountryLanguage: input.matchCountryLanguage,
    matchTechnologies: input.matchTechnologies,
    rootPath: input.rootPath,
    subset: input.subset ?? null,
    subsetSlice: input.subsetSlice,
    minAge: input.minAge,
    maxAge: input.maxAge,
    fromDate: input.fromDate ?? null,
    requiredSets: setsOf(input.requiredSets),
    subdomains: input.subdomains,
    excludeNoTraffic: input.excludeNoTraffic,
    excludeMultilingual: input.excludeMultilingual,
    excludeListId: input.excludeListId ?? null,
    excludeListIds: [],
    baseListId: input.baseListId ?? null,
    vulnerabilities: input.vulnerabilities ?? [],
    possiblyAffected: input.possiblyAffected,
    sets: setsOf(input.sets),
    callbackUrl: input.callbackUrl ?? null,
    format: input.format,
  };
}
