import { ENRICHMENT_SETS } from '../../enrichment';
import { toLookupV2Object, type NullableSiteLookup } from '../../services/lookup/lookup-v2.presenter';
import { MAX_EMAIL_INPUT_LENGTH } from '../../services/verify/email-verification.service';
import type { GraphQLSchema } from 'graphql';
import { jsonSchemaOf, selectionOf } from '../graphql-shape';
import type { JsonSchema } from '../json-schema';
import { booleanParam, csvParam, urlListParam, integerParam, stringParam } from '../params';
import type { RestRoute } from '../route';

/** The technology object of the REST answer: GraphQL's, without confidence (it stays on GraphQL). */
const TECHNOLOGY_OMIT = ['confidence'];

export const LOOKUP_V2_ROUTES: RestRoute[] = [
  {
    method: 'GET',
    path: '/v2/lookup',
    operationId: 'getLookupV2',
    summary: 'Look sites up in the index, with field sets (up to ten URLs)',
    description:
      'Each URL is answered from the index when a result confirmed between max_age and min_age months ago is stored ' +
      '(1 credit). Otherwise, or with live=true: recursive=false analyses one page now (1 credit when it succeeds); ' +
      'recursive=true (the default) crawls the site (5 credits, refunded when it cannot be analysed) and POSTs its ' +
      'result to callback_url, answering {url, crawl: true} now. A URL that could not be analysed gives {url, errors} ' +
      'inside a 200.',
    tag: 'Lookup',
    family: 'lookup',
    params: [
      urlListParam('One to ten comma-separated website URLs (one when recursive is false)'),
      booleanParam({
        name: 'live',
        default: false,
        description: 'true: analyse now instead of answering from the index',
      }),
      booleanParam({
        name: 'recursive',
        default: true,
        description:
          'true: a site without a stored result (or live=true) is crawled (up to 25 pages) and called back; ' +
          'false: one page is analysed now (one URL only)',
      }),
      stringParam({
        name: 'callback_url',
        maxLength: 2048,
        description: 'Required when some URL will be answered by callback',
      }),
      csvParam({
        name: 'sets',
        minItems: 1,
        maxItems: ENRICHMENT_SETS.length + 1,
        itemMaxLength: 20,
        description: `Field sets: ${ENRICHMENT_SETS.join(', ')}, or all`,
      }),
      booleanParam({ name: 'denoise', default: true, description: 'Leave out results under 50% confidence' }),
      integerParam({
        name: 'min_age',
        min: 0,
        max: 11,
        default: 0,
        description: 'Months: a stored result counts only if confirmed at least this long ago',
      }),
      integerParam({
        name: 'max_age',
        min: 1,
        max: 12,
        default: 2,
        description: 'Months: a stored result counts only if confirmed at most this long ago',
      }),
      booleanParam({
        name: 'squash',
        default: true,
        description: 'false: [{url, results: [{monthYear, technologies}]}], one entry per month of history',
      }),
      stringParam({
        name: 'debug_email',
        maxLength: MAX_EMAIL_INPUT_LENGTH,
        pattern: /^[^@\s]+@[^@\s]+$/,
        patternText: 'must be an email address',
        description: 'Accepted for compatibility and not used: this service sends no debug mail',
      }),
    ],
    // The usual lookup (no field sets, squash=true) reads each URL's object as JSON text, written
    // from texts kept per technology (lookup-v2.presenter.ts); with field sets or the monthly
    // history the whole record is read and presented here, the enriched fields in the schema's order.
    operation: (schema) => `query LookupV2($urls: [String!]!, $live: Boolean!, $recursive: Boolean!,
        $callbackUrl: String, $sets: [String!]!, $denoise: Boolean!, $minAge: Int!, $maxAge: Int!, $squash: Boolean!,
        $whole: Boolean!) {
      lookupV2(urls: $urls, live: $live, recursive: $recursive, callbackUrl: $callbackUrl, sets: $sets,
        denoise: $denoise, minAge: $minAge, maxAge: $maxAge, squash: $squash) {
        json @skip(if: $whole)
        ... @include(if: $whole) { ${selectionOf(schema, 'SiteLookupType', [...TECHNOLOGY_OMIT, 'json'])} }
      }
    }`,
    variables: (v) => ({
      urls: v.urls,
      live: v.live ?? false,
      recursive: v.recursive ?? true,
      callbackUrl: v.callback_url ?? null,
      sets: v.sets ?? [],
      denoise: v.denoise ?? true,
      minAge: v.min_age ?? 0,
      maxAge: v.max_age ?? 2,
      squash: v.squash ?? true,
      whole: wholeRecord(v),
    }),
    respond: (data, values) => {
      const lookups = data.lookupV2 as (NullableSiteLookup & { json?: string })[];
      if (wholeRecord(values)) return { status: 200, body: lookups.map(toLookupV2Object) };
      return { status: 200, json: `[${lookups.map((lookup) => lookup.json).join(',')}]` };
    },
    responses: {
      200: {
        description: 'One object per URL: the stored or fresh result, {url, crawl: true}, or {url, errors}',
        schema: (schema) => ({ type: 'array', items: lookupItemSchema(schema) }),
      },
    },
  },
];

/** Field sets or the monthly history asked for: the answer is read as the whole record. */
const wholeRecord = (values: Record<string, unknown>): boolean =>
  ((values.sets as string[] | undefined) ?? []).length > 0 || values.squash === false;

function lookupItemSchema(schema: GraphQLSchema): JsonSchema {
  const record = jsonSchemaOf(schema, 'SiteLookupType', {
    omit: ['state', 'errors', 'months', 'json', ...TECHNOLOGY_OMIT],
  });
  const month = jsonSchemaOf(schema, 'LookupTechnologyMonthType', { omit: TECHNOLOGY_OMIT });
  const { technologies, ...fields } = record.properties ?? {};
  return {
    // anyOf: a crawl answer with stored technologies also fits the record's form.
    anyOf: [
      { ...record, required: ['url', 'technologies'] },
      {
        type: 'object',
        required: ['url', 'results'],
        properties: { ...fields, results: { type: 'array', items: month } },
      },
      {
        type: 'object',
        required: ['url', 'crawl'],
        properties: { url: { type: 'string' }, crawl: { const: true }, technologies: technologies ?? {} },
      },
      {
        type: 'object',
        required: ['url', 'errors'],
        properties: { url: { type: 'string' }, errors: { type: 'array', items: { type: 'string' } } },
      },
    ],
  };
}
