import type { GraphQLSchema } from 'graphql';
import type { Family } from '../plans/plan-catalog';
import type { Services } from '../services/services';
import type { JsonSchema } from './json-schema';

/** One documented parameter: where it comes from, its published schema, and how it is parsed. */
export interface ParamSpec<T = unknown> {
  name: string;
  in: 'query' | 'path' | 'body';
  required: boolean;
  description: string;
  schema: JsonSchema;
  /** Turns the raw value (string for query/path, JSON value for body) into T or throws ValidationError naming the parameter. */
  parse(raw: unknown): T;
}

export interface RouteResponse {
  status: number;
  /** The answer, serialised as JSON by the facade... */
  body?: unknown;
  /** ...or already JSON text (an answer rendered once and kept, e.g. Lookup v1's stored months). */
  json?: string;
  headers?: Record<string, string>;
}

export interface ResponseDoc {
  description: string;
  /** The body's schema, or how to derive it from the GraphQL type it is read from (see graphql-shape.ts). */
  schema: JsonSchema | ((schema: GraphQLSchema) => JsonSchema);
}

/**
 * One entry of the REST facade: a documented path and its parameters, the GraphQL operation it
 * runs, and how that operation's data becomes the documented body, status and headers.
 * The same entry generates its part of the OpenAPI document.
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path without trailing slash; `{name}` marks a path parameter. Both `/x` and `/x/` are served. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The rate-limit family (for the docs; the limit itself is enforced on the GraphQL field); 'public' for keyless routes. */
  family: Family | 'public';
  params: ParamSpec[];
  /**
   * The GraphQL operation, parsed and validated once at start-up; a function derives its selection
   * from the schema's types (see graphql-shape.ts), so the shape is not written out twice.
   */
  operation: string | ((schema: GraphQLSchema) => string);
  variables(values: Record<string, unknown>): Record<string, unknown>;
  respond(data: Record<string, unknown>, values: Record<string, unknown>): RouteResponse;
  /** Documented responses other than the shared error responses. */
  responses: Record<number, ResponseDoc>;
  /**
   * Public route: no key needed (a key, if sent, is ignored), limited per client address
   * (PUBLIC_RATE_LIMIT_PER_MINUTE), not metered, no credit headers.
   */
  public?: boolean;
  /** Conditional GET: the entity tag of the current answer (If-None-Match → 304) and how long it may be reused. */
  cache?: {
    etag(services: Services): Promise<string>;
    maxAgeSeconds(services: Services): number;
  };
}
