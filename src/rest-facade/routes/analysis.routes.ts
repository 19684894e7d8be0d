import type { GraphQLSchema } from 'graphql';
import { ENRICHMENT_SETS } from '../../enrichment';
import { NotFoundError } from '../../errors';
import { toLiveV2Object, type LiveAnalysisSource } from '../../services/analysis/live-v2.presenter';
import {
  AnalyzeV1AnswerShape,
  ReceivedShape,
  TechnologyShape,
  toAnalyzeV1Answer,
  type ApplicationSource,
  type ErrorObject,
  type TechnologyObject,
  type V1Outcome,
} from '../../services/analysis/analysis-shapes';
import { jsonSchemaOf, selectionOf } from '../graphql-shape';
import { jsonSchemaOfShape, type JsonSchema } from '../json-schema';
import { booleanParam, csvParam, urlListParam, enumParam, stringParam, urlParam } from '../params';
import type { RestRoute } from '../route';

/** The GraphQL form of one URL's analysis the routes read (see src/schema/analysis.type.ts). */
type UrlAnalysisData = LiveAnalysisSource & {
  state: 'ANALYSED' | 'FAILED' | 'ACCEPTED';
  technologies: (TechnologyObject & ApplicationSource)[];
  errors: ErrorObject[];
};

const TECHNOLOGY_FIELDS =
  'slug name version versions confidence icon website confirmedAt categories { id slug name }';
const URL_ANALYSIS_FIELDS = `url state technologies { ${TECHNOLOGY_FIELDS} } errors { type message }`;
/** UrlAnalysis's own fields; the rest are the enriched record's (sets=), derived from the schema. */
// render and skipped stay on GraphQL (Analyze v1's answer shows what was skipped its own way).
const OWN_FIELDS = ['url', 'state', 'technologies', 'errors', 'render', 'skipped'];
const setFieldsOf = (schema: GraphQLSchema) => selectionOf(schema, 'UrlAnalysis', OWN_FIELDS);
/** Lookup v1's months: the GraphQL type without the fields the published answer does not have. */
const LOOKUP_EXTRA_FIELDS = ['slug', 'confidence'];

const liveItemSchema = (schema: GraphQLSchema): JsonSchema => ({
  oneOf: [
    {
      type: 'object',
      required: ['url', 'technologies'],
      properties: {
        url: { type: 'string' },
        technologies: { type: 'array', items: jsonSchemaOfShape(TechnologyShape) },
        ...jsonSchemaOf(schema, 'UrlAnalysis', { omit: OWN_FIELDS }).properties,
      },
    },
    {
      type: 'object',
      required: ['url', 'errors'],
      properties: { url: { type: 'string' }, errors: { type: 'array', items: { type: 'string' } } },
    },
    {
      type: 'object',
      required: ['url', 'crawl'],
      properties: { url: { type: 'string' }, crawl: { const: true } },
    },
  ],
});
const receivedSchema = jsonSchemaOfShape(ReceivedShape);

const callbackParam = (required: boolean, description: string) =>
  stringParam({ name: 'callback_url', required, maxLength: 2048, description });

function liveRoute(
  path: string,
  field: 'live' | 'crawl',
  family: 'live' | 'crawl-v2',
  summary: string,
): RestRoute {
  return {
    method: 'GET',
    path,
    operationId: field === 'live' ? 'getLiveV2' : 'getCrawlV2',
    summary,
    description:
      'recursive=false analyses one URL synchronously (several URLs: 400). Recursive requests (the default) need ' +
      'callback_url: the answer is [{url, crawl: true}] (202) and one signed callback per URL follows.',
    tag: field === 'live' ? 'Live' : 'Crawl',
    family,
    params: [
      urlListParam('One to ten comma-separated website URLs; exactly one when recursive is false'),
      callbackParam(false, 'Required when recursive is true (the default)'),
      booleanParam({
        name: 'recursive',
        default: true,
        description:
          field === 'live' ? 'false: analyse one page synchronously' : 'true: crawl up to 25 pages per URL',
      }),
      csvParam({
        name: 'sets',
        minItems: 1,
        maxItems: ENRICHMENT_SETS.length + 1,
        itemMaxLength: 20,
        description: `Extra field sets: ${ENRICHMENT_SETS.join(', ')}, or all (as the index stored them)`,
      }),
    ],
    operation: (
      schema,
    ) => `query Live($urls: [String!]!, $callbackUrl: String, $recursive: Boolean!, $sets: [String!]!) {
      ${field}(urls: $urls, callbackUrl: $callbackUrl, recursive: $recursive, sets: $sets) {
        ${URL_ANALYSIS_FIELDS} ${setFieldsOf(schema)}
      }
    }`,
    variables: (v) => ({
      urls: v.urls,
      callbackUrl: v.callback_url ?? null,
      recursive: v.recursive ?? true,
      sets: v.sets ?? [],
    }),
    respond: (data) => {
      const results = data[field] as UrlAnalysisData[];
      const accepted = results.every((r) => r.state === 'ACCEPTED');
      return { status: accepted ? 202 : 200, body: results.map(toLiveV2Object) };
    },
    responses: {
      200: {
        description: 'Synchronous result, one object per URL',
        schema: (schema) => ({ type: 'array', items: liveItemSchema(schema) }),
      },
      202: {
        description: 'Accepted: results follow by callback, one per URL',
        schema: (schema) => ({ type: 'array', items: liveItemSchema(schema) }),
      },
    },
  };
}

export const ANALYSIS_ROUTES: RestRoute[] = [
  {
    method: 'GET',
    path: '/analyze/v1',
    operationId: 'getAnalyzeV1',
    summary: 'Analyse a single page synchronously',
    description:
      'A site that cannot be analysed gives status "error" with typed errors; it counts toward the quota but costs no credits.',
    tag: 'Analyze',
    family: 'analyze',
    params: [
      urlParam({ name: 'url', required: true, description: 'The page to analyse' }),
      enumParam({
        name: 'render',
        values: ['off', 'auto', 'always'] as const,
        description:
          'Browser rendering for js/xhr technologies (an addition to the published interface): off, auto (the server default RENDER decides when) or always',
      }),
    ],
    operation: `query Analyze($url: String!, $render: RenderChoice) { analyze(url: $url, render: $render) { ${URL_ANALYSIS_FIELDS} } }`,
    variables: (v) => ({ url: v.url, render: typeof v.render === 'string' ? v.render.toUpperCase() : null }),
    respond: (data) => {
      const a = data.analyze as UrlAnalysisData;
      const outcome: V1Outcome =
        a.state === 'FAILED' ? { ok: false, errors: a.errors } : { ok: true, technologies: a.technologies };
      return { status: 200, body: toAnalyzeV1Answer(outcome) };
    },
    responses: {
      200: {
        description: 'The applications found, or status error with the reasons',
        schema: jsonSchemaOfShape(AnalyzeV1AnswerShape),
      },
    },
  },
  liveRoute('/live/v2', 'live', 'live', 'Real-time analysis of up to ten sites'),
  liveRoute('/crawl/v2', 'crawl', 'crawl-v2', 'Crawl up to ten sites, up to 25 pages each'),
  {
    method: 'GET',
    path: '/crawl/v1',
    operationId: 'getCrawlV1',
    summary: 'Crawl a site (up to 25 pages); the result is POSTed to callback_url',
    tag: 'Crawl',
    family: 'crawl-v1',
    params: [
      urlParam({ name: 'url', required: true, description: 'The first page to analyse' }),
      callbackParam(true, 'Receives {url, applications, status} (or status error with errors)'),
    ],
    operation:
      'mutation CrawlV1($url: String!, $callbackUrl: String!) { crawlV1(url: $url, callbackUrl: $callbackUrl) }',
    variables: (v) => ({ url: v.url, callbackUrl: v.callback_url }),
    respond: () => ({ status: 202, body: { status: 'received' } }),
    responses: { 202: { description: 'Accepted', schema: receivedSchema } },
  },
  {
    method: 'GET',
    path: '/lookup/v1',
    operationId: 'getLookupV1',
    summary: 'Look a site up in the index (monthly history, up to six months back)',
    description:
      'No stored result: with callback_url the site is crawled and {url, applications} POSTed within two minutes (202); ' +
      'without it, 404 (still counted toward the quota). `hits` counts the page views of the site this service recorded that month.',
    tag: 'Lookup',
    family: 'lookup',
    params: [
      urlParam({ name: 'url', required: true, description: 'The site to look up' }),
      callbackParam(false, 'Where to POST the result when the site is not indexed yet'),
      booleanParam({ name: 'denoise', default: true, description: 'Exclude low-confidence results' }),
    ],
    // The months as JSON text, rendered once per stored version of the site (lookup-v1-answer.ts):
    // the documented fields of LookupMonthType (a test holds the two together).
    operation: `query Lookup($url: String!, $callbackUrl: String, $denoise: Boolean!) {
      lookup(url: $url, callbackUrl: $callbackUrl, denoise: $denoise) { status monthsJson }
    }`,
    variables: (v) => ({ url: v.url, callbackUrl: v.callback_url ?? null, denoise: v.denoise ?? true }),
    respond: (data, values) => {
      const result = data.lookup as { status: string; monthsJson: string };
      if (result.status === 'FOUND') return { status: 200, json: result.monthsJson };
      if (result.status === 'RECEIVED') return { status: 202, body: { status: 'received' } };
      throw new NotFoundError(
        `No stored result for ${String(values.url)}; pass callback_url to have the site indexed`,
      );
    },
    responses: {
      200: {
        description: 'Monthly results, oldest month first',
        schema: (schema) => ({
          type: 'array',
          items: jsonSchemaOf(schema, 'LookupMonthType', { omit: LOOKUP_EXTRA_FIELDS }),
        }),
      },
      202: {
        description: 'Not indexed yet: the site is crawled and the result POSTed to callback_url',
        schema: receivedSchema,
      },
      404: {
        description: 'No stored result and no callback_url (counted toward the quota)',
        schema: { $ref: '#/components/schemas/Error' },
      },
    },
  },
];
