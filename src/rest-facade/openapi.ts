import { stringify } from 'yaml';
import type { z } from 'zod';
import { PLANS } from '../plans/plan-catalog';
import { guardOf } from '../resolvers/guards';
import { fieldMeta, unwrapField } from '../services/platform/request-schema';
import { ErrorBodyShape } from './error-response';
import { jsonSchemaOf, type JsonSchema } from './json-schema';
import { paramsOf, type RouteParam } from './params';
import type { AnyRoute } from './route';

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Invalid parameter (the message and `parameter` name it)',
  403: 'Missing, unknown or revoked API key; plan without the feature; or insufficient credits',
  405: 'Method not allowed on this path (see the Allow header)',
  429: 'Rate limit or quota exceeded (see the Retry-After header)',
  500: 'Server error (the body carries a request id)',
};

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** The rate-limit family of a route, from the guard on its resolver method ('public': no key). */
export function familyOf(route: AnyRoute): string {
  const guard = guardOf(...route.resolver);
  if (!guard) throw new Error(`${route.method} ${route.path}: the resolver method has no guard`);
  return guard.kind === 'public' ? 'public' : (guard.family ?? 'operator');
}

/**
 * Generates the OpenAPI 3.1 document from the route table, so the published contract and the
 * served routes cannot drift apart: parameters from each operation's request schema, responses
 * from the presenters' shapes. Served at /openapi/v2-public.yaml.
 */
export function buildOpenApiDocument(
  routes: readonly AnyRoute[],
  options: {
    serverUrl?: string;
    headerPrefix: string;
    publicRateLimitPerMinute?: number;
    /** Shapes published under components.schemas (e.g. a callback body that descriptions name). */
    components?: Record<string, z.ZodType>;
  },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const family = familyOf(route);
    const isPublic = family === 'public';
    const params = paramsOf(route);
    const query = params.filter((p) => p.in !== 'body');
    const body = params.filter((p) => p.in === 'body');
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
    const successHeaders = isPublic ? (route.cache ? cacheHeaders : undefined) : meteredHeaders;
    const responses: Record<string, unknown> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      responses[status] = {
        description: doc.description,
        headers: Number(status) < 300 ? successHeaders : undefined,
        content: {
          'application/json': { schema: doc.shape === 'error' ? ERROR_REF : jsonSchemaOf(doc.shape) },
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
      if (isPublic && status === '403') continue;
      responses[status] ??= { description, content: { 'application/json': { schema: ERROR_REF } } };
    }
    const limits = isPublic
      ? `no key needed; ${options.publicRateLimitPerMinute ?? 60} requests per minute per client address (PUBLIC_RATE_LIMIT_PER_MINUTE); not metered`
      : (['small', 'medium', 'large', 'business'] as const)
          .map((plan) => {
            const limit = PLANS[plan].rateLimits[family as keyof (typeof PLANS)['small']['rateLimits']];
            return `${plan}: ${limit.max} per ${limit.windowMs / 1000} s`;
          })
          .join('; ');
    const path = `${route.path}/`;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(isPublic ? { security: [] } : {}),
      description: [route.description, `Rate limit (${family}): ${limits}.`].filter(Boolean).join('\n\n'),
      tags: [route.tag],
      parameters: query.map((p) => ({
        name: p.name,
        in: p.in,
        required: p.in === 'path' ? true : p.required,
        description: fieldMeta(p.schema).description,
        schema: parameterSchemaOf(p),
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
                      body.flatMap((p) => {
                        const schema = parameterSchemaOf(p);
                        const entry = [p.name, { ...schema, description: fieldMeta(p.schema).description }];
                        if (!p.alias) return [entry];
                        const alias = `The spelling of the published example, accepted for ${p.name}`;
                        return [entry, [p.alias, { ...schema, description: alias }]];
                      }),
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
  const components: Record<string, JsonSchema> = { Error: jsonSchemaOf(ErrorBodyShape) };
  for (const [name, shape] of Object.entries(options.components ?? {}))
    components[name] = jsonSchemaOf(shape);
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
      schemas: components,
    },
  };
}

/**
 * A parameter's schema in the document: the field's type with its bounds and default; a list in a
 * query string is comma-separated text; a URL is a string of format uri.
 */
function parameterSchemaOf(param: RouteParam): JsonSchema {
  const { inner, default: defaultValue } = unwrapField(param.schema);
  const withDefault = (schema: JsonSchema): JsonSchema =>
    defaultValue === undefined ? schema : { ...schema, default: defaultValue };
  const def = inner.def as { type: string };
  if (def.type === 'array' && param.in !== 'body') {
    const { minItems, maxItems } = jsonSchemaOf(inner);
    // An empty value is an absent parameter: a list given holds at least one item.
    return {
      type: 'string',
      description: `Comma-separated, ${Math.max(minItems ?? 0, 1)} to ${maxItems} items`,
    };
  }
  if (fieldMeta(param.schema).uri) return { type: 'string', format: 'uri', maxLength: 2048 };
  // The parameter's description is the parameter's, not its schema's.
  const { description: _own, ...schema } = jsonSchemaOf(inner);
  return withDefault(schema);
}

export function renderOpenApiYaml(document: object): string {
  return stringify(document, { aliasDuplicateObjects: false });
}
