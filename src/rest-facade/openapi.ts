import type { GraphQLSchema } from 'graphql';
import { stringify } from 'yaml';
import { PLANS } from '../plans/plan-catalog';
import { ERROR_BODY_SCHEMA } from './json-schema';
import type { RestRoute } from './route';

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Invalid parameter (the message and `parameter` name it)',
  403: 'Missing, unknown or revoked API key; plan without the feature; or insufficient credits',
  405: 'Method not allowed on this path (see the Allow header)',
  429: 'Rate limit or quota exceeded (see the Retry-After header)',
  500: 'Server error (the body carries a request id)',
};

/**
 * Generates the OpenAPI 3.1 document from the route table, so the published contract and the
 * served routes cannot drift apart. Served at /openapi/v2-public.yaml.
 */
export function buildOpenApiDocument(
  routes: readonly RestRoute[],
  options: {
    serverUrl?: string;
    headerPrefix: string;
    publicRateLimitPerMinute?: number;
    /** The schema the routes' shapes are derived from. */
    graphqlSchema: GraphQLSchema;
  },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `${route.path}/`;
    const query = route.params.filter((p) => p.in !== 'body');
    const body = route.params.filter((p) => p.in === 'body');
    const meteredHeaders = {
      [`${options.headerPrefix}-credits-spent`]: {
        description: 'Credits deducted by this request',
        schema: { type: 'integer' },
      },
      [`${options.headerPrefix}-credits-remaining`]: {
        description: 'Credit balance after it',
        schema: { type: 'integer' },
      },
    };
    const cacheHeaders = {
      ETag: {
        description: 'Entity tag of the answer: send it back in If-None-Match',
        schema: { type: 'string' },
      },
      'Cache-Control': { description: 'How long the answer may be reused', schema: { type: 'string' } },
    };
    const successHeaders = route.public ? (route.cache ? cacheHeaders : undefined) : meteredHeaders;
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      responses[status] = {
        description: doc.description,
        headers: Number(status) < 300 ? successHeaders : undefined,
        content: {
          'application/json': {
            schema: typeof doc.schema === 'function' ? doc.schema(options.graphqlSchema) : doc.schema,
          },
        },
      };
    }
    if (route.cache) {
      responses['304'] = {
        description: 'Not modified: the If-None-Match tag is the current one (empty body)',
        headers: cacheHeaders,
      };
    }
    for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
      if (route.public && status === '403') continue;
      responses[status] ??= {
        description,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    const family = route.family;
    const limits =
      family === 'public'
        ? `no key needed; ${options.publicRateLimitPerMinute ?? 60} requests per minute per client address (PUBLIC_RATE_LIMIT_PER_MINUTE); not metered`
        : (['small', 'medium', 'large', 'business'] as const)
            .map(
              (plan) =>
                `${plan}: ${PLANS[plan].rateLimits[family].max} per ${PLANS[plan].rateLimits[family].windowMs / 1000} s`,
            )
            .join('; ');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.public ? { security: [] } : {}),
      description: [route.description, `Rate limit (${route.family}): ${limits}.`]
        .filter(Boolean)
        .join('\n\n'),
      tags: [route.tag],
      parameters: query.map((p) => ({
        name: p.name,
        in: p.in,
        required: p.in === 'path' ? true : p.required,
        description: p.description,
        schema: p.schema,
      })),
      ...(body.length > 0
        ? {
            requestBody: {
              required: body.some((p) => p.required),
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: Object.fromEntries(
                      body.map((p) => [p.name, { ...p.schema, description: p.description }]),
                    ),
                    required: body.filter((p) => p.required).map((p) => p.name),
                  },
                },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Technology Intelligence API',
      version: '2.0.0',
      description:
        'Identify the technologies websites use, look sites up in the index, verify email addresses and find subdomains. ' +
        'Every path also answers without its trailing slash.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ apiKey: [] }],
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: { Error: ERROR_BODY_SCHEMA },
    },
  };
}

export function renderOpenApiYaml(document: object): string {
  return stringify(document, { aliasDuplicateObjects: false });
}
