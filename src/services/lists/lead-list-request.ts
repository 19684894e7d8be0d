import { COMPANY_SIZES, ENRICHMENT_SETS, type EnrichmentSet } from '../../enrichment';
import { ValidationError } from '../../errors';
import { versionKeyRange, type VersionOperator } from '../site-index/version-key';

/**
 * The request of POST /v2/lists, validated and normalised. Every bad value is a ValidationError
 * naming the field (technologies[2].version, keywords[0], ...). What needs the database or the
 * catalogue (known slugs, category expansion, referenced lists, the callback URL's address) is
 * checked by LeadListService on top of this.
 */
export const MAX_TECHNOLOGIES = 100;
export const MAX_CATEGORIES = 20;
/** Technologies a category contributes: its most used ones in the index. */
export const CATEGORY_TOP = 100;
export const MAX_VALUES = 100;
export const MAX_SUBSET = 10_000_000;
export const MATCH_TECHNOLOGIES = ['or', 'and', 'not'] as const;
export const SUBDOMAIN_MODES = ['include', 'exclude', 'merge'] as const;
export const LIST_FORMATS = ['csv', 'json'] as const;
export const VERSION_OPERATORS = ['=', '>=', '<='] as const;

export type MatchTechnologies = (typeof MATCH_TECHNOLOGIES)[number];
export type SubdomainMode = (typeof SUBDOMAIN_MODES)[number];
export type ListFormat = (typeof LIST_FORMATS)[number];

export interface ListTechnologyInput {
  slug: string;
  version?: string | null;
  operator?: string | null;
}

/** What a client may send (GraphQL input or REST body); null and undefined mean "not given". */
export interface ListCreateInput {
  technologies?: ListTechnologyInput[] | null;
  categories?: string[] | null;
  keywords?: string[] | null;
  languages?: string[] | null;
  countries?: string[] | null;
  industries?: string[] | null;
  companySizes?: string[] | null;
  tlds?: string[] | null;
  matchCountryLanguage?: boolean | null;
  matchTechnologies?: string | null;
  rootPath?: boolean | null;
  subset?: number | null;
  subsetSlice?: number | null;
  minAge?: number | null;
  maxAge?: number | null;
  fromDate?: number | null;
  requiredSets?: string[] | null;
  subdomains?: string | null;
  excludeNoTraffic?: boolean | null;
  excludeMultilingual?: boolean | null;
  excludeListId?: string | null;
  baseListId?: string | null;
  sets?: string[] | null;
  callbackUrl?: string | null;
  format?: string | null;
}

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
  sets: EnrichmentSet[];
  callbackUrl: string | null;
  format: ListFormat;
  /** Datasets' matchLanguageTld false: a site matches by its language or by its TLD (lists: both). */
  languageOrTld?: boolean;
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

function given<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

function stringList(
  name: string,
  value: unknown,
  item: (raw: string, field: string) => string,
  max = MAX_VALUES,
): string[] {
  if (!given(value)) return [];
  if (!Array.isArray(value)) throw new ValidationError(name, `${name} must be an array of strings`);
  if (value.length > max) throw new ValidationError(name, `${name} must hold at most ${max} values`);
  const out: string[] = [];
  value.forEach((raw, i) => {
    const field = `${name}[${i}]`;
    if (typeof raw !== 'string') throw new ValidationError(name, `${field} must be a string`);
    const normal = item(raw.trim(), field);
    if (!out.includes(normal)) out.push(normal);
  });
  return out;
}

function pattern(re: RegExp, text: string, lower = true) {
  return (raw: string, field: string): string => {
    const value = lower ? raw.toLowerCase() : raw;
    if (!re.test(value)) throw new ValidationError(field.replace(/\[\d+\]$/, ''), `${field} ${text}`);
    return value;
  };
}

function wholeNumber(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ValidationError(name, `${name} must be a whole number between ${min} and ${max}`);
  return value;
}

function flag(name: string, value: unknown, fallback: boolean): boolean {
  if (!given(value)) return fallback;
  if (typeof value !== 'boolean') throw new ValidationError(name, `${name} must be true or false`);
  return value;
}

function oneOf<T extends string>(name: string, value: unknown, values: readonly T[], fallback: T): T {
  if (!given(value)) return fallback;
  if (typeof value !== 'string' || !(values as readonly string[]).includes(value.trim().toLowerCase()))
    throw new ValidationError(name, `${name} must be one of ${values.join(', ')}`);
  return value.trim().toLowerCase() as T;
}

function fieldSets(name: string, value: unknown): EnrichmentSet[] {
  const sets = stringList(name, value, (raw, field) => {
    const set = raw.toLowerCase();
    if (set !== 'all' && !(ENRICHMENT_SETS as readonly string[]).includes(set))
      throw new ValidationError(
        name,
        `${field}: unknown field set ${JSON.stringify(raw)}; known: ${ENRICHMENT_SETS.join(', ')}, all`,
      );
    return set;
  });
  if (sets.includes('all')) return [...ENRICHMENT_SETS];
  return sets as EnrichmentSet[];
}

function listId(name: string, value: unknown): string | null {
  if (!given(value)) return null;
  if (typeof value !== 'string' || !LIST_ID_PATTERN.test(value.trim()))
    throw new ValidationError(name, `${name} must be a list id (lst_…)`);
  return value.trim();
}

function technologies(value: unknown): ListTechnology[] {
  if (!given(value)) return [];
  if (!Array.isArray(value)) throw new ValidationError('technologies', 'technologies must be an array');
  if (value.length > MAX_TECHNOLOGIES)
    throw new ValidationError('technologies', `technologies must hold at most ${MAX_TECHNOLOGIES} items`);
  const out: ListTechnology[] = [];
  value.forEach((raw: unknown, i) => {
    const field = `technologies[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new ValidationError('technologies', `${field} must be an object with a slug`);
    const item = raw as Record<string, unknown>;
    if (
      typeof item.slug !== 'string' ||
      !/^[a-z0-9][a-z0-9._+-]{0,119}$/.test(item.slug.trim().toLowerCase())
    )
      throw new ValidationError('technologies', `${field}.slug must be a technology slug`);
    const slug = item.slug.trim().toLowerCase();
    let version: string | null = null;
    if (given(item.version) && item.version !== '') {
      const text = typeof item.version === 'number' ? String(item.version) : item.version;
      if (typeof text !== 'string' || text.length > 60 || !versionKeyRange('=', text))
        throw new ValidationError('technologies', `${field}.version must be a version number such as 4.9`);
      version = text.trim();
    }
    let operator: VersionOperator = '=';
    if (given(item.operator) && item.operator !== '') {
      if (!(VERSION_OPERATORS as readonly unknown[]).includes(item.operator))
        throw new ValidationError('technologies', `${field}.operator must be one of =, >=, <=`);
      if (version === null) throw new ValidationError('technologies', `${field}.operator needs a version`);
      operator = item.operator as VersionOperator;
    }
    if (out.some((t) => t.slug === slug))
      throw new ValidationError('technologies', `${field}.slug ${slug} is given twice`);
    out.push({ slug, operator, version, explicit: true });
  });
  return out;
}

/** Validates and normalises everything that needs no database. */
export function parseListRequest(input: ListCreateInput): ListRequest {
  if (typeof input !== 'object' || input === null)
    throw new ValidationError('body', 'The request body must be a JSON object');
  const techs = technologies(input.technologies);
  const categories = stringList(
    'categories',
    input.categories,
    pattern(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be a category slug'),
    MAX_CATEGORIES,
  );
  if (techs.length === 0 && categories.length === 0)
    throw new ValidationError('technologies', 'technologies or categories must name at least one technology');
  const minAge = given(input.minAge) ? wholeNumber('minAge', input.minAge, 0, 11) : 0;
  const maxAge = given(input.maxAge) ? wholeNumber('maxAge', input.maxAge, 1, 12) : 3;
  if (minAge >= maxAge) throw new ValidationError('minAge', 'minAge must be lower than maxAge');
  const excludeListId = listId('excludeListId', input.excludeListId);
  const baseListId = listId('baseListId', input.baseListId);
  if (excludeListId && excludeListId === baseListId)
    throw new ValidationError('excludeListId', 'excludeListId and baseListId must differ');
  let callbackUrl: string | null = null;
  if (given(input.callbackUrl)) {
    if (typeof input.callbackUrl !== 'string' || input.callbackUrl.trim() === '')
      throw new ValidationError('callbackUrl', 'callbackUrl must be a URL');
    callbackUrl = input.callbackUrl.trim();
  }
  return {
    technologies: techs,
    categories,
    keywords: stringList(
      'keywords',
      input.keywords,
      pattern(/^(not )?[a-z0-9]{1,60}$/, "must be a-z0-9 letters, optionally after 'not '"),
    ),
    languages: stringList(
      'languages',
      input.languages,
      pattern(/^[a-z]{2}(-[a-z]{2})?$/, 'must be an ISO 639-1 code (xx or xx-yy)'),
    ),
    countries: stringList('countries', input.countries, (raw, field) =>
      pattern(/^[a-z]{2}$/, 'must be a two-letter country code')(raw, field).toUpperCase(),
    ),
    industries: stringList(
      'industries',
      input.industries,
      pattern(/^[\p{L}\p{N} &,./'()-]{1,100}$/u, 'must be an industry name (at most 100 characters)'),
    ),
    companySizes: stringList('companySizes', input.companySizes, (raw, field) => {
      const label = companySizeLabel(raw);
      if (!label)
        throw new ValidationError(
          'companySizes',
          `${field} must be a size code: ${COMPANY_SIZES.map(([l, max]) => (Number.isFinite(max) ? `${l} (or ${max})` : l)).join(', ')}`,
        );
      return label;
    }),
    tlds: stringList('tlds', input.tlds, (raw, field) => {
      const value = raw.toLowerCase().replace(/^(?!\.)/, '.');
      if (!/^(\.[a-z0-9-]{1,63}){1,3}$/.test(value))
        throw new ValidationError('tlds', `${field} must be a top-level domain such as .com`);
      return value;
    }),
    matchCountryLanguage: flag('matchCountryLanguage', input.matchCountryLanguage, true),
    matchTechnologies: oneOf('matchTechnologies', input.matchTechnologies, MATCH_TECHNOLOGIES, 'or'),
    rootPath: flag('rootPath', input.rootPath, false),
    subset: given(input.subset) ? wholeNumber('subset', input.subset, 1, MAX_SUBSET) : null,
    subsetSlice: given(input.subsetSlice) ? wholeNumber('subsetSlice', input.subsetSlice, 0, 4) : 0,
    minAge,
    maxAge,
    fromDate: given(input.fromDate) ? wholeNumber('fromDate', input.fromDate, 0, 2_147_483_647) : null,
    requiredSets: fieldSets('requiredSets', input.requiredSets),
    subdomains: oneOf('subdomains', input.subdomains, SUBDOMAIN_MODES, 'include'),
    excludeNoTraffic: flag('excludeNoTraffic', input.excludeNoTraffic, false),
    excludeMultilingual: flag('excludeMultilingual', input.excludeMultilingual, false),
    excludeListId,
    excludeListIds: [],
    baseListId,
    sets: fieldSets('sets', input.sets),
    callbackUrl,
    format: oneOf('format', input.format, LIST_FORMATS, 'csv'),
  };
}
