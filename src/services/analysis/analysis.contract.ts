import { z } from 'zod';
import { ENRICHMENT_SETS, type EnrichmentSet } from '../../enrichment';
import { ValidationError } from '../../errors';
import { field } from '../platform/request-schema';
import { type DetectedTechnology } from '../../detection';
import { FETCH_ERROR_TYPES, type FetchError } from '../../fetch';
import { withoutNulls } from '../platform/published-shape';
import { ENRICHMENT_FIELD_ORDER, EnrichmentFieldsShape } from './enrichment-fields';

/*
 * The request schemas of the analysis family (Analyze v1, Live v2, Crawl v2, Crawl v1) and of the
 * lookups, with the fields they share: `urls`, `callback_url`, `sets`.
 */

/** The spec's `urls`: one to ten http(s) URLs. */
export const urlsField = (description: string) =>
  field.list(field.url({ description: 'A website URL', required: true }), {
    min: 1,
    max: 10,
    required: true,
    description,
  });

export const callbackUrlField = <R extends boolean>(required: R, description: string) =>
  field.text({ maxLength: 2048, rest: 'callback_url', required, description });

/** A field set's name, or `all`. */
function setName(value: string): EnrichmentSet | 'all' {
  const name = value.toLowerCase();
  if (name === 'all' || (ENRICHMENT_SETS as readonly string[]).includes(name))
    return name as EnrichmentSet | 'all';
  throw new ValidationError(
    'sets',
    `sets: unknown field set ${JSON.stringify(name)}; known: ${ENRICHMENT_SETS.join(', ')}, all`,
  );
}

/** The spec's `sets`: field sets by name, or `all` (every set); each set once, in the order given. */
export const setsField = (description: string) =>
  field.list(field.item(20).transform(field.parsedBy(setName)), {
    max: ENRICHMENT_SETS.length + 1,
    description,
  });

/** The sets a request's `sets` asks for (`all` is every set). */
export function setsOf(names: readonly (EnrichmentSet | 'all')[] | undefined): EnrichmentSet[] {
  if (!names) return [];
  if (names.includes('all')) return [...ENRICHMENT_SETS];
  return [...new Set(names as EnrichmentSet[])];
}

export const AnalyzeRequest = z.object({
  url: field.url({ required: true, description: 'The page to analyse' }),
  render: field.choice(['off', 'auto', 'always'] as const, {
    graphqlType: 'RenderChoice',
    description:
      'Browser rendering for js/xhr technologies (an addition to the published interface): off, auto (the server default RENDER decides when) or always',
  }),
});

const liveRequest = (urls: string, recursive: string) =>
  z.object({
    urls: urlsField(urls),
    callbackUrl: callbackUrlField(false, 'Required when recursive is true (the default)'),
    recursive: field.flag({ default: true, description: recursive }),
    sets: setsField(`Extra field sets: ${ENRICHMENT_SETS.join(', ')}, or all (as the index stored them)`),
  });

export const LiveRequest = liveRequest(
  'One to ten comma-separated website URLs; exactly one when recursive is false',
  'false: analyse one page synchronously',
);
export const CrawlRequest = liveRequest(
  'One to ten comma-separated website URLs; exactly one when recursive is false',
  'true: crawl up to 25 pages per URL',
);
export type LiveRequestInput = z.output<typeof LiveRequest>;

export const CrawlV1Request = z.object({
  url: field.url({ required: true, description: 'The first page to analyse' }),
  callbackUrl: callbackUrlField(true, 'Receives {url, applications, status} (or status error with errors)'),
});

export const LookupV1Request = z.object({
  url: field.url({ required: true, description: 'The site to look up' }),
  callbackUrl: callbackUrlField(false, 'Where to POST the result when the site is not indexed yet'),
  denoise: field.flag({ default: true, description: 'Exclude low-confidence results' }),
});

/*
 * The published answers of the v1 analysis family and of the Live/Crawl v2 technology object,
 * declared once: the zod schema gives the TypeScript type (z.infer), the OpenAPI JSON Schema (the
 * REST facade derives it with z.toJSONSchema), and the presenters below build exactly it, for the
 * synchronous answer and the callback worker alike.
 */

export const ErrorShape = z.strictObject({
  type: z.enum(FETCH_ERROR_TYPES),
  message: z.string(),
});
export type ErrorObject = z.infer<typeof ErrorShape>;

/** The Application object (Analyze v1, Crawl v1 and Lookup v1 callbacks). */
export const ApplicationShape = z.strictObject({
  name: z.string(),
  confidence: z.string().describe('Numeric text, 0-100'),
  version: z.string().describe("'' when unknown"),
  icon: z.string(),
  website: z.string(),
  categories: z.array(
    z.record(z.string(), z.string()).describe('A single entry: category id (as text) → category name'),
  ),
});
export type ApplicationObject = z.infer<typeof ApplicationShape>;

/** The Technology object of Live v2 and Crawl v2. */
export const TechnologyShape = z.strictObject({
  slug: z.string(),
  name: z.string(),
  versions: z.array(z.string()),
  categories: z.array(z.strictObject({ id: z.number().int(), slug: z.string(), name: z.string() })),
  confidence: z.number().int().describe('0-100'),
  confirmedAt: z.number().int().describe('UNIX seconds'),
});
export type TechnologyObject = z.infer<typeof TechnologyShape>;

/** GET /analyze/v1/: the applications found, or status error with the reasons. */
export const AnalyzeV1AnswerShape = z.strictObject({
  status: z.enum(['success', 'error']),
  applications: z.array(ApplicationShape),
  errors: z.array(ErrorShape).optional(),
});
export type AnalyzeV1Answer = z.infer<typeof AnalyzeV1AnswerShape>;

/** The body POSTed to a Crawl v1 callback_url. */
export const CrawlV1CallbackShape = AnalyzeV1AnswerShape.extend({ url: z.string() });
export type CrawlV1Callback = z.infer<typeof CrawlV1CallbackShape>;

/** The body POSTed to a Lookup v1 callback_url once the site is indexed (no status field). */
export const LookupV1CallbackShape = AnalyzeV1AnswerShape.omit({ status: true }).extend({ url: z.string() });
export type LookupV1Callback = z.infer<typeof LookupV1CallbackShape>;

/** The answer of an accepted asynchronous v1 call (Crawl v1, Lookup v1 with a callback). */
export const ReceivedShape = z.strictObject({ status: z.literal('received') });
export const RECEIVED = { status: 'received' } as const;

/** One URL of a Live v2 / Crawl v2 answer (and of their callbacks): analysed, failed, or accepted. */
export const LiveItemShape = z
  .union([
    z.object({ url: z.string(), technologies: z.array(TechnologyShape), ...EnrichmentFieldsShape.shape }),
    z.object({ url: z.string(), errors: z.array(z.string()) }),
    z.object({ url: z.string(), crawl: z.literal(true) }),
  ])
  .meta({ exclusive: true });

/** What an Application object is made of: a detected technology, or its GraphQL form. */
export type ApplicationSource = Pick<
  DetectedTechnology,
  'name' | 'confidence' | 'version' | 'icon' | 'website'
> & {
  categories: { id: number; name: string }[];
};

/** One analysis as the v1 answers see it: what was found, or why nothing could be. */
export type V1Outcome =
  { ok: true; technologies: ApplicationSource[] } | { ok: false; errors: ErrorObject[] };

export function toApplication(t: ApplicationSource): ApplicationObject {
  return {
    name: t.name,
    confidence: String(t.confidence),
    version: t.version,
    icon: t.icon,
    website: t.website,
    categories: t.categories.map((c) => ({ [String(c.id)]: c.name })),
  };
}

export function toAnalyzeV1Answer(outcome: V1Outcome): AnalyzeV1Answer {
  return outcome.ok
    ? { status: 'success', applications: outcome.technologies.map(toApplication) }
    : { status: 'error', applications: [], errors: outcome.errors.map(toErrorObject) };
}

export function toCrawlV1Callback(url: string, outcome: V1Outcome): CrawlV1Callback {
  return { url, ...toAnalyzeV1Answer(outcome) };
}

export function toLookupV1Callback(url: string, outcome: V1Outcome): LookupV1Callback {
  const { status: _status, ...rest } = toAnalyzeV1Answer(outcome);
  return { url, ...rest };
}

export function toTechnology(
  t: Pick<DetectedTechnology, 'slug' | 'name' | 'versions' | 'confidence'> & {
    categories: { id: number; slug: string; name: string }[];
  },
  confirmedAt: Date | number,
): TechnologyObject {
  return {
    slug: t.slug,
    name: t.name,
    versions: t.versions,
    categories: t.categories.map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
    confidence: t.confidence,
    confirmedAt: typeof confirmedAt === 'number' ? confirmedAt : Math.floor(confirmedAt.getTime() / 1000),
  };
}

export function toErrorObject(error: Pick<FetchError, 'type' | 'message'>): ErrorObject {
  return { type: error.type, message: error.message };
}

/** One URL's analysis, from the service (state in lower case), as the resolver and the worker give it. */
export interface LiveAnalysisSource {
  url: string;
  state: string;
  technologies: TechnologyObject[];
  errors: { message: string }[];
  [field: string]: unknown;
}

/**
 * The Live v2 / Crawl v2 object of one URL, for the synchronous answer and the callbacks alike:
 * `{url, crawl: true}`, `{url, errors: [text]}`, or `{url, technologies, ...set fields}` (the
 * enriched record's fields in their published order; a field without a value is left out).
 */
export function toLiveV2Object(a: LiveAnalysisSource): Record<string, unknown> {
  const state = a.state.toLowerCase();
  if (state === 'accepted') return { url: a.url, crawl: true };
  if (state === 'failed') return { url: a.url, errors: a.errors.map((e) => e.message) };
  const out: Record<string, unknown> = {
    url: a.url,
    technologies: a.technologies.map((t) => toTechnology(t, t.confirmedAt)),
  };
  for (const field of ENRICHMENT_FIELD_ORDER) {
    const kept = withoutNulls(a[field]);
    if (kept !== undefined) out[field] = kept;
  }
  return out;
}
