import { z } from 'zod';
import { versionedCpes } from '../../detection';
import { ENRICHMENT_SETS } from '../../enrichment';
import { MAX_EMAIL_INPUT_LENGTH } from '../../verify';
import { callbackUrlField, setsField, urlsField } from '../analysis/analysis.contract';
import { field } from '../platform/request-schema';
import {
  ENRICHMENT_FIELD_ORDER,
  EnrichmentFieldsShape,
  type EnrichmentFields,
} from '../analysis/enrichment-fields';
import { withoutNulls } from '../platform/published-shape';
import { type LookupMonth } from '../site-index/site-index.service';
import { type LookupTechnology, type LookupTechnologyMonth } from './stored-site-reader';

/** GET /v2/lookup/. */
export const LookupV2Request = z.object({
  urls: urlsField('One to ten comma-separated website URLs (one when recursive is false)'),
  live: field.flag({ default: false, description: 'true: analyse now instead of answering from the index' }),
  recursive: field.flag({
    default: true,
    description:
      'true: a site without a stored result (or live=true) is crawled (up to 25 pages) and called back; ' +
      'false: one page is analysed now (one URL only)',
  }),
  callbackUrl: callbackUrlField(false, 'Required when some URL will be answered by callback'),
  sets: setsField(`Field sets: ${ENRICHMENT_SETS.join(', ')}, or all`),
  denoise: field.flag({ default: true, description: 'Leave out results under 50% confidence' }),
  minAge: field.integer({
    min: 0,
    max: 11,
    default: 0,
    rest: 'min_age',
    description: 'Months: a stored result counts only if confirmed at least this long ago',
  }),
  maxAge: field.integer({
    min: 1,
    max: 12,
    default: 2,
    rest: 'max_age',
    description: 'Months: a stored result counts only if confirmed at most this long ago',
  }),
  squash: field.flag({
    default: true,
    description: 'false: [{url, results: [{monthYear, technologies}]}], one entry per month of history',
  }),
  debugEmail: field.text({
    maxLength: MAX_EMAIL_INPUT_LENGTH,
    pattern: /^[^@\s]+@[^@\s]+$/,
    patternText: 'must be an email address',
    rest: 'debug_email',
    description: 'Accepted for compatibility and not used: this service sends no debug mail',
  }),
});

const defaults = LookupV2Request.parse({ urls: ['example.com'] });

/** How a Lookup v2 answer is presented when the request said nothing: the schema's defaults. */
export const LOOKUP_V2_DEFAULTS = {
  denoise: defaults.denoise,
  squash: defaults.squash,
  window: { minAge: defaults.minAge, maxAge: defaults.maxAge },
};

/** What a Lookup v2 URL came to: answered from the index, analysed now, accepted for a crawl, or failed. */
export type SiteLookupState = 'FOUND' | 'ANALYSED' | 'ACCEPTED' | 'FAILED';

/** One URL of a Lookup v2 answer in its full form: the service's result, GraphQL's type and the callback's source. */
export interface SiteLookup extends EnrichmentFields {
  url: string;
  state: SiteLookupState;
  /** The current technologies (squash=true), or those stored for a site being crawled. */
  technologies: LookupTechnology[];
  /** One entry per month of history (squash=false), else null. */
  months: LookupTechnologyMonth[] | null;
  errors: string[];
}

const OWN_FIELDS = new Set(['url', 'state', 'technologies', 'months', 'errors']);

/**
 * The published JSON of one Lookup v2 URL, for the REST answer and the callbacks alike:
 * `{url, errors}`, `{url, crawl: true}` (with the stored technologies, if any), or
 * `{url, technologies, ...fields}` (`{url, results: [{monthYear, technologies}], ...fields}` with
 * squash=false). Technologies carry the contract's fields only (confidence stays on GraphQL); a
 * field without a value is left out, never sent as null.
 */
export function toLookupV2Object(lookup: SiteLookup): Record<string, unknown> {
  const url = lookup.url;
  if (lookup.state === 'FAILED') return { url, errors: lookup.errors };
  const technologies = lookup.technologies.map(toTechnologyObject);
  if (lookup.state === 'ACCEPTED')
    return technologies.length > 0 ? { url, crawl: true, technologies } : { url, crawl: true };
  const out: Record<string, unknown> = { url };
  if (lookup.months) {
    out.results = lookup.months.map((month) => ({
      monthYear: month.monthYear,
      technologies: month.technologies.map(toTechnologyObject),
    }));
  } else {
    out.technologies = technologies;
  }
  for (const field of ENRICHMENT_FIELD_ORDER) {
    const kept = withoutNulls(lookup[field]);
    if (kept !== undefined) out[field] = kept;
  }
  return out;
}

/** Technologies' JSON texts, by the (frozen, shared) technology they render: stored-site-reader.ts. */
const technologyTexts = new WeakMap<LookupTechnology, string>();

/**
 * toLookupV2Object's answer as JSON text. A stored site answered with its current technologies and
 * no field sets (the usual stored lookup) is written from each technology's text, kept per
 * technology: the reader hands out the same frozen objects while the site's stored version holds,
 * so a stored Lookup v2 no longer builds and serialises every Technology object of its answer per
 * request. Anything else is serialised whole.
 */
export function lookupV2Json(lookup: SiteLookup): string {
  const plain =
    (lookup.state === 'FOUND' || lookup.state === 'ANALYSED') &&
    lookup.months === null &&
    Object.keys(lookup).every((key) => OWN_FIELDS.has(key));
  if (!plain) return JSON.stringify(toLookupV2Object(lookup));
  const technologies = lookup.technologies.map((technology) => {
    let text = technologyTexts.get(technology);
    if (text === undefined) {
      text = JSON.stringify(toTechnologyObject(technology));
      technologyTexts.set(technology, text);
    }
    return text;
  });
  return `{"url":${JSON.stringify(lookup.url)},"technologies":[${technologies.join(',')}]}`;
}

/** The Technology object of the contract (Live v2, Crawl v2, enriched lookup). */
export function toTechnologyObject(
  t: Omit<LookupTechnology, 'cpe' | 'versionedCpes' | 'trafficRank'> & {
    cpe?: string | null;
    trafficRank?: number | null;
  },
): Record<string, unknown> {
  return {
    slug: t.slug,
    name: t.name,
    ...(t.cpe ? { cpe: t.cpe } : {}),
    ...versionedCpesField(t.cpe, t.versions),
    versions: t.versions,
    categories: t.categories.map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
    ...(t.trafficRank !== null && t.trafficRank !== undefined ? { trafficRank: t.trafficRank } : {}),
    confirmedAt: t.confirmedAt,
  };
}

/** The versioned CPEs of a technology with a CPE and detected versions (left out otherwise). */
function versionedCpesField(
  cpe: string | null | undefined,
  versions: readonly string[],
): { versionedCpes?: string[] } {
  const versioned = versionedCpes(cpe, versions);
  return versioned.length > 0 ? { versionedCpes: versioned } : {};
}

/** GET /v2/lookup/'s answer, written from each URL's text (see lookupV2Json). */
export function lookupV2AnswerJson(lookups: readonly SiteLookup[]): string {
  return `[${lookups.map(lookupV2Json).join(',')}]`;
}

/** The Technology object of a Lookup v2 answer (the contract's; confidence stays on GraphQL). */
const LookupTechnologyShape = z.object({
  slug: z.string(),
  name: z.string(),
  cpe: z
    .string()
    .describe("CPE 2.3 name (version ANY), when the fingerprints or the project's CPE table give one")
    .optional(),
  versionedCpes: z
    .array(z.string())
    .describe('The CPE with each detected version in its version slot (CPE 2.3 quoting), when both are known')
    .optional(),
  versions: z.array(z.string()),
  categories: z.array(z.object({ id: z.number().int(), slug: z.string(), name: z.string() })),
  trafficRank: z
    .number()
    .int()
    .describe("The site's traffic rank, 1 = most traffic (see the README: imported or observed)")
    .optional(),
  confirmedAt: z.number().int().describe('UNIX seconds of the last analysis that confirmed it'),
});
const LookupTechnologiesShape = z.array(LookupTechnologyShape);

/** One URL of GET /v2/lookup/: the record (or its monthly history), a crawl accepted, or errors. */
export const LookupV2ItemShape = z.union([
  z.object({
    url: z.string(),
    technologies: LookupTechnologiesShape.describe(
      'Current technologies (squash=true); for ACCEPTED, those already stored',
    ),
    ...EnrichmentFieldsShape.shape,
  }),
  z.object({
    url: z.string(),
    results: z.array(
      z.object({ monthYear: z.string().describe('MM-YYYY'), technologies: LookupTechnologiesShape }),
    ),
    ...EnrichmentFieldsShape.shape,
  }),
  z.object({
    url: z.string(),
    crawl: z.literal(true),
    technologies: LookupTechnologiesShape.describe(
      'Current technologies (squash=true); for ACCEPTED, those already stored',
    ).optional(),
  }),
  z.object({ url: z.string(), errors: z.array(z.string()) }),
]);

/** One month of GET /lookup/v1/'s answer. */
export const LookupMonthShape = z.object({
  monthYear: z.string().describe('MM-YYYY'),
  languages: z.array(z.string()),
  applications: z.array(
    z.object({
      name: z.string(),
      categories: z.array(z.string()),
      versions: z.array(z.string()),
      hits: z.number().int().describe('Recorded page views of the site that month on which it was detected'),
    }),
  ),
});

/** JSON texts already rendered, by the months array they render (stored ones are shared: stored-history.ts). */
const renderedMonths = new WeakMap<readonly LookupMonth[], string>();

/**
 * Lookup v1's published answer (GET /lookup/v1/'s 200 body) as JSON text: each month's monthYear,
 * languages and applications, each application's name, categories, versions and hits (GraphQL's
 * slug and confidence stay on GraphQL). Rendered once per months array: a stored lookup's array is
 * the same for every request while the site's stored history is unchanged.
 */
export function lookupV1Json(months: readonly LookupMonth[]): string {
  let json = renderedMonths.get(months);
  if (json === undefined) {
    json = JSON.stringify(
      months.map((month) => ({
        monthYear: month.monthYear,
        languages: month.languages,
        applications: month.applications.map((a) => ({
          name: a.name,
          categories: a.categories,
          versions: a.versions,
          hits: a.hits,
        })),
      })),
    );
    renderedMonths.set(months, json);
  }
  return json;
}
