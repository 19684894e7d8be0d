import type { Family } from '../../plans/plan-catalog';
import type { RestRoute } from '../route';
import type { JsonSchema } from '../json-schema';

const usageSchema: JsonSchema = {
  type: 'object',
  required: ['api', 'plan'],
  properties: {
    api: {
      type: 'object',
      required: ['throttle', 'quota'],
      properties: {
        throttle: {
          type: 'object',
          required: ['rateLimit'],
          properties: { rateLimit: { type: 'integer', description: 'Requests per second' } },
        },
        quota: {
          type: 'object',
          required: ['limit', 'period'],
          properties: { limit: { type: 'integer' }, period: { type: 'string', enum: ['DAY', 'MONTH'] } },
        },
      },
    },
    plan: {
      type: 'object',
      required: ['name', 'quota'],
      properties: {
        name: { type: 'string' },
        quota: {
          type: 'object',
          required: ['remaining'],
          properties: {
            remaining: { type: 'integer', description: 'An estimate, updated as requests are counted' },
          },
        },
      },
    },
  },
};

const balanceRoute: RestRoute = {
  method: 'GET',
  path: '/v2/credits/balance',
  operationId: 'getCreditBalance',
  summary: 'Read the credit balance',
  tag: 'Credits',
  family: 'credits',
  params: [],
  operation: 'query CreditBalance { creditBalance { credits } }',
  variables: () => ({}),
  respond: (data) => ({ status: 200, body: data.creditBalance }),
  responses: {
    200: {
      description: 'The balance',
      schema: { type: 'object', required: ['credits'], properties: { credits: { type: 'integer' } } },
    },
  },
};

/** Every resource path that has a `<resource path>/usage` companion, with its rate-limit family. */
export const USAGE_PATHS: readonly { path: string; family: Family; tag: string }[] = [
  { path: '/v2/lists', family: 'lists', tag: 'Lists' },
  { path: '/dataset/v1', family: 'dataset', tag: 'Dataset' },
  { path: '/live/v2', family: 'live', tag: 'Live' },
  { path: '/crawl/v2', family: 'crawl-v2', tag: 'Crawl' },
  { path: '/crawl/v1', family: 'crawl-v1', tag: 'Crawl' },
  { path: '/lookup/v1', family: 'lookup', tag: 'Lookup' },
  { path: '/v2/lookup', family: 'lookup', tag: 'Lookup' },
  { path: '/analyze/v1', family: 'analyze', tag: 'Analyze' },
  { path: '/v2/verify', family: 'verify', tag: 'Email verification' },
  { path: '/v2/subdomains', family: 'subdomains', tag: 'Subdomain finder' },
  { path: '/v2/credits', family: 'credits', tag: 'Credits' },
];

/**
 * The `<resource path>/usage` routes of the resources `served` actually holds: a usage path of a
 * resource the service does not serve (lists, datasets) is an unknown path (404), not a 200.
 */
export function usageRoutesFor(served: readonly RestRoute[]): RestRoute[] {
  const isServed = (path: string) => served.some((r) => r.path === path || r.path.startsWith(`${path}/`));
  return USAGE_PATHS.filter(({ path }) => isServed(path)).map(({ path, family, tag }) => ({
    method: 'GET',
    path: `${path}/usage`,
    operationId: `getUsage${path.replace(/[^a-z0-9]+(.)/gi, (_, c: string) => c.toUpperCase())}`,
    summary: `Quota and limits of the plan for ${path}/ (counts toward the quota)`,
    tag,
    family: 'usage',
    params: [],
    operation: `query Usage($family: EndpointFamily!) {
    usage(family: $family) { api { throttle { rateLimit } quota { limit period } } plan { name quota { remaining } } }
  }`,
    variables: () => ({ family: family.toUpperCase().replace(/-/g, '_') }),
    respond: (data) => ({ status: 200, body: data.usage }),
    responses: { 200: { description: 'The usage object', schema: usageSchema } },
  }));
}

export const ACCOUNT_ROUTES: RestRoute[] = [balanceRoute];
