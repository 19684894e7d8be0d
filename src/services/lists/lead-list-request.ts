import { z } from 'zod';
import { COMPANY_SIZES, ENRICHMENT_SETS, type EnrichmentSet } from '../../enrichment';
import { field } from '../platform/request-schema';
import { versionKeyRange, type VersionOperator } from '../site-index/version-key';

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

/** Items of a string list, trimmed, normalised by `normal`, each kept once. */
function values(
  description: string,
  normal: (value: string, ctx: z.RefinementCtx) => string,
  max = MAX_VALUES,
) {
  return field.uniqueList(z.string({ error: '{name} must be a string' }).trim().transform(normal), {
    max,
    description,
  });
}

/** A lower-cased item matching `re`, else `{name}[i] <text>`. */
function matching(re: RegExp, text: string) {
  return (raw: string, ctx: z.RefinementCtx): string => {
    const value = raw.toLowerCase();
    if (!re.test(value)) ctx.addIssue({ code: 'custom', message: `{name} ${text}` });
    return value;
  };
}

function setNames(description: string) {
  return values(description, (raw, ctx) => {
    const set = raw.toLowerCase();
    if (set !== 'all' && !(ENRICHMENT_SETS as readonly string[]).includes(set))
      ctx.addIssue({
        code: 'custom',
        message: `{name}: unknown field set ${JSON.stringify(raw)}; known: ${ENRICHMENT_SETS.join(', ')}, all`,
      });
    return set;
  });
}

/** Languages: ISO 639-1 codes (xx or xx-yy); shared with the datasets' request. */
export const languagesField = (description: string) =>
  values(description, matching(/^[a-z]{2}(-[a-z]{2})?$/, 'must be an ISO 639-1 code (xx or xx-yy)'));

/** Top-level domains, the leading dot added; shared with the datasets' request. */
export const tldsField = (description: string) =>
  values(description, (raw, ctx) => {
    const value = raw.toLowerCase().replace(/^(?!\.)/, '.');
    if (!/^(\.[a-z0-9-]{1,63}){1,3}$/.test(value))
      ctx.addIssue({ code: 'custom', message: '{name} must be a top-level domain such as .com' });
    return value;
  });

const listId = (description: string) =>
  field.text({
    maxLength: 40,
    pattern: LIST_ID_PATTERN,
    patternText: 'must be a list id (lst_…)',
    description,
  });

const TechnologyItem = z
  .object(
    {
      slug: z
        .string({ error: '{name} must be a string' })
        .trim()
        .toLowerCase()
        .regex(/^[a-z0-9][a-z0-9._+-]{0,119}$/, { error: '{name} must be a technology slug' })
        .meta({ description: 'A technology slug' }),
      version: z
        .preprocess(
          (value) => (typeof value === 'number' ? String(value) : value === '' ? undefined : value),
          z
            .string({ error: '{name} must be a string' })
            .trim()
            .refine((text) => text.length <= 60 && versionKeyRange('=', text) !== null, {
              error: '{name} must be a version number such as 4.9',
            }),
        )
        .optional()
        .meta({ description: 'A version number (4, 4.9, 4.9.1)' }),
      operator: z
        .preprocess(
          (value) => (value === '' ? undefined : value),
          z.enum(VERSION_OPERATORS, { error: '{name} must be one of =, >=, <=' }),
        )
        .optional()
        .meta({ description: '=, >= or <=' }),
    },
    { error: '{name} must be an object with a slug' },
  )
  .meta({ graphqlType: 'ListTechnologyInput' });

/** POST /v2/lists's body, and GraphQL's ListCreateInput. */
export const ListCreateRequest = z
  .object({
    technologies: field.list(TechnologyItem, {
      max: MAX_TECHNOLOGIES,
      description: `At most ${MAX_TECHNOLOGIES} technologies: {slug, version?, operator?: ${VERSION_OPERATORS.join(' | ')}}`,
    }),
    categories: values(
      'Category slugs; each adds its top 100 technologies by websites in the index',
      matching(/^[a-z0-9][a-z0-9-]{0,99}$/, 'must be a category slug'),
      MAX_CATEGORIES,
    ),
    keywords: values(
      "Keywords (a-z0-9); prefix 'not ' to exclude",
      matching(/^(not )?[a-z0-9]{1,60}$/, "must be a-z0-9 letters, optionally after 'not '"),
    ),
    languages: languagesField('ISO 639-1 codes, or with region (xx-yy); xx matches xx-yy too'),
    countries: values('Two-letter country codes', (raw, ctx) =>
      matching(/^[a-z]{2}$/, 'must be a two-letter country code')(raw, ctx).toUpperCase(),
    ),
    industries: values(
      'Industries (as the enrichment names them, case-insensitive)',
      matching(/^[\p{L}\p{N} &,./'()-]{1,100}$/u, 'must be an industry name (at most 100 characters)'),
    ),
    companySizes: values(
      'Size labels (1-10 … 10001+) or the upper bound of a range (5000 = 1001-5000)',
      (raw, ctx) => {
        const label = companySizeLabel(raw);
        if (label) return label;
        ctx.addIssue({
          code: 'custom',
          message: `{name} must be a size code: ${COMPANY_SIZES.map(([l, max]) => (Number.isFinite(max) ? `${l} (or ${max})` : l)).join(', ')}`,
        });
        return raw;
      },
    ),
    tlds: tldsField('Top-level domains, with or without the leading dot'),
    matchCountryLanguage: field.flag({
      default: true,
      description: 'true: both country and language must match; false: either',
    }),
    matchTechnologies: field.choice(MATCH_TECHNOLOGIES, {
      default: 'or',
      description: 'or: any; and: all; not: the first and none of the others',
    }),
    rootPath: field.flag({ default: false, description: 'Only sites with the technology on the home page' }),
    subset: field.integer({ min: 1, max: MAX_SUBSET, description: 'Websites per technology at most' }),
    subsetSlice: field.integer({
      min: 0,
      max: 4,
      default: 0,
      description: 'Traffic quintile the subset starts at: 0 highest … 4 lowest',
    }),
    minAge: field.integer({
      min: 0,
      max: 11,
      default: 0,
      description: 'Months: confirmed at least this long ago',
    }),
    maxAge: field.integer({
      min: 1,
      max: 12,
      default: 3,
      description: 'Months: confirmed at most this long ago',
    }),
    fromDate: field.integer({
      min: 0,
      max: 2_147_483_647,
      description: 'UNIX seconds: only sites first seen after it',
    }),
    requiredSets: setNames(`Field sets a site must hold a value in: ${ENRICHMENT_SETS.join(', ')}, all`),
    subdomains: field.choice(SUBDOMAIN_MODES, {
      default: 'include',
      description: 'include, exclude or merge (one result per domain)',
    }),
    excludeNoTraffic: field.flag({ default: false, description: 'Leave out sites without traffic' }),
    excludeMultilingual: field.flag({ default: false, description: 'Leave out sites in several languages' }),
    excludeListId: listId(
      'Leave out the websites of this list and of the lists it excluded (≤ 10 lists, ≤ 500,000 websites)',
    ),
    baseListId: listId('Only websites also in this list'),
    sets: setNames(`Field sets in the files: ${ENRICHMENT_SETS.join(', ')}, all`),
    callbackUrl: field.text({
      maxLength: 2048,
      description: 'Notified (signed POST) when the calculation ends',
    }),
    format: field.choice(LIST_FORMATS, { default: 'csv', description: 'File format: csv or json' }),
  })
  .superRefine((list, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const slugs = new Set<string>();
    (list.technologies ?? []).forEach((technology, i) => {
      if (technology.operator !== undefined && technology.version === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['technologies', i, 'operator'],
          message: '{name} needs a version',
        });
      if (slugs.has(technology.slug))
        ctx.addIssue({
          code: 'custom',
          path: ['technologies', i, 'slug'],
          message: `{name} ${technology.slug} is given twice`,
        });
      slugs.add(technology.slug);
    });
    if ((list.technologies ?? []).length === 0 && (list.categories ?? []).length === 0)
      issue('technologies', 'technologies or categories must name at least one technology');
    if (list.minAge >= list.maxAge) issue('minAge', '{name} must be lower than maxAge');
    if (list.excludeListId && list.excludeListId === list.baseListId)
      issue('excludeListId', '{name} and baseListId must differ');
  });

export type ListCreateInput = z.output<typeof ListCreateRequest>;

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
    sets: setsOf(input.sets),
    callbackUrl: input.callbackUrl ?? null,
    format: input.format,
  };
}

const listIdPath = () => field.text({ maxLength: 40, required: true, description: 'List id (lst_…)' });

/** GET and DELETE /v2/lists/{id}. */
export const ListIdRequest = z.object({ id: listIdPath() });

/** POST /v2/lists/{id}: buy a Ready list. */
export const FinalizeListRequest = z.object({
  id: listIdPath(),
  spendCredits: field.integer({
    min: 0,
    max: 2_147_483_647,
    required: true,
    description: "Must equal the list's totalCredits",
  }),
});
