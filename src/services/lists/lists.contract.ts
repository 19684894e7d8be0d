import { z } from 'zod';
import { COMPANY_SIZES, ENRICHMENT_SETS } from '../../enrichment';
import { LIST_STATUSES } from '../../storage/entities/lead-list.entity';
import { field } from '../platform/request-schema';
import { project } from '../platform/published-shape';
import { versionKeyRange } from '../site-index/version-key';
import { VULNERABILITY_ID, VULNERABILITY_ID_TEXT } from '../vulns/exposure.contract';
import {
  companySizeLabel,
  LIST_FORMATS,
  LIST_ID_PATTERN,
  MATCH_TECHNOLOGIES,
  MAX_CATEGORIES,
  MAX_SUBSET,
  MAX_TECHNOLOGIES,
  MAX_VALUES,
  MAX_VULNERABILITIES,
  SUBDOMAIN_MODES,
  VERSION_OPERATORS,
} from './lead-list-request';
import type { ListSummaryView, ListView } from './lead-list.service';

/*
 * The Lists family's published contract: what its operations take (POST /v2/lists's body and
 * GraphQL's ListCreateInput, a list id, a purchase) and what they answer.
 */

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
    vulnerabilities: field.uniqueList(
      field.item(80, { pattern: VULNERABILITY_ID, patternText: VULNERABILITY_ID_TEXT }),
      {
        max: MAX_VULNERABILITIES,
        description:
          `Extension: up to ${MAX_VULNERABILITIES} imported vulnerability ids or aliases (CVE-…, GHSA-…); only sites ` +
          'running a version they affect (without technologies or categories: the technologies they name)',
      },
    ),
    possiblyAffected: field.flag({
      default: false,
      description:
        'Extension, with vulnerabilities: also sites where the technology was found without a version (possibly affected)',
    }),
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
    if (
      (list.technologies ?? []).length === 0 &&
      (list.categories ?? []).length === 0 &&
      (list.vulnerabilities ?? []).length === 0
    )
      issue('technologies', 'technologies, categories or vulnerabilities must name at least one technology');
    if (list.possiblyAffected && (list.vulnerabilities ?? []).length === 0)
      issue('possiblyAffected', '{name} needs vulnerabilities');
    if (list.minAge >= list.maxAge) issue('minAge', '{name} must be lower than maxAge');
    if (list.excludeListId && list.excludeListId === list.baseListId)
      issue('excludeListId', '{name} and baseListId must differ');
  });

export type ListCreateInput = z.output<typeof ListCreateRequest>;

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

/** The Technology object of a list (the spec's "Technology object (inside lists)"). */
const ListTechnologyShape = z.object({
  slug: z.string(),
  name: z.string(),
  categories: z.array(z.object({ slug: z.string().optional(), name: z.string().optional() })),
  operator: z.enum(VERSION_OPERATORS),
  version: z.string().nullable(),
});

const Strings = z.array(z.string());
const Counts = z.record(z.string(), z.number().int());

/** GET /v2/lists/: the summary form. */
export const ListSummaryShape = z.object({
  id: z.string(),
  createdAt: z.number().int(),
  status: z.enum(LIST_STATUSES),
  totalCredits: z.number().int(),
  technologies: z.array(ListTechnologyShape),
  keywords: Strings,
  rows: z.number().int(),
});

/** GET /v2/lists/{id}: the full form; rows and setRows are objects (technology or set → websites). */
export const ListShape = z.object({
  id: z.string(),
  createdAt: z.number().int(),
  status: z.enum(LIST_STATUSES),
  technologies: z.array(ListTechnologyShape),
  keywords: Strings.optional(),
  languages: Strings.optional(),
  countries: Strings.optional(),
  industries: Strings.optional(),
  companySizes: Strings.optional(),
  tlds: Strings.optional(),
  matchCountryLanguage: z.boolean().optional(),
  matchTechnologies: z.string().optional(),
  rootPath: z.boolean().optional(),
  subset: z.number().int().nullable().optional(),
  subsetSlice: z.number().int().optional(),
  subdomains: z.string().optional(),
  minAge: z.number().int().optional(),
  maxAge: z.number().int().optional(),
  fromDate: z.number().int().nullable().optional(),
  requiredSets: Strings.optional(),
  excludeNoTraffic: z.boolean().optional(),
  excludeMultilingual: z.boolean().optional(),
  excludeListId: z.string().nullable().optional(),
  vulnerabilities: Strings.optional(),
  possiblyAffected: z.boolean().optional(),
  sets: Strings.optional(),
  callbackUrl: z.string().nullable().optional(),
  format: z.string().optional(),
  totalCredits: z.number().int(),
  url: z.string().nullable(),
  sampleUrl: z.string().nullable(),
  rows: Counts,
  setRows: Counts,
  websites: z.number().int().optional(),
  baseListId: z.string().nullable().optional(),
  baseList: ListSummaryShape.nullable().optional(),
  error: z.string().nullable().optional(),
});

/** POST /v2/lists: the new list. */
export const ListCreatedShape = z.object({ id: z.string(), status: z.literal('Calculating') });

/** POST /v2/lists/{id}: the list bought, with the signed link to its ZIP file. */
export const ListFinalizedShape = z.object({
  id: z.string(),
  status: z.literal('Complete'),
  url: z.string(),
});

/** DELETE /v2/lists/{id}: an empty object. */
export const ListDeletedShape = z.strictObject({});

export function toListSummaries(lists: readonly ListSummaryView[]): z.output<typeof ListSummaryShape>[] {
  return lists.map((list) => project(ListSummaryShape, list));
}

/** The full form: the count lists become the published objects (slug → rows, set → rows). */
export function toList(list: ListView): z.output<typeof ListShape> {
  return project(ListShape, {
    ...list,
    rows: Object.fromEntries(list.rows.map((r) => [r.slug, r.rows])),
    setRows: Object.fromEntries(list.setRows.map((r) => [r.set, r.rows])),
  });
}
