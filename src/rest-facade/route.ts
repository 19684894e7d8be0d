import type { z } from 'zod';
import type { RequestSchema } from '../services/platform/request-schema';
import type { Services } from '../services/services';

/** What a route answers: a body serialised as JSON, or JSON text already rendered, a status and headers. */
export interface RouteAnswer {
  status: number;
  body?: unknown;
  /** The answer as JSON text (an answer rendered once and kept, e.g. Lookup v1's stored months). */
  json?: string;
  headers?: Record<string, string>;
}

/** A documented response: its published shape (a zod schema of a presenter), or the shared error body. */
export interface ResponseDoc {
  description: string;
  shape: z.ZodType | 'error';
}

/** A resolver class: the facade makes one instance of each and calls its methods as GraphQL does. */
export type ResolverClass = new () => object;

/**
 * One entry of the REST facade: a documented path, the resolver method it maps onto (the method
 * GraphQL calls, so the guards on it run for both: key, plan, rate limit), how the request becomes
 * the method's arguments, and how its typed result becomes the documented body and status. The
 * parameters are the fields of the operation's request schema: path parameters as `pathParams`
 * name them, the others from the query string (GET, DELETE) or the JSON body (POST), each under its
 * REST name. The same entry makes its part of the OpenAPI document.
 */
export interface RestRoute<Values = Record<string, unknown>, Result = unknown> {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path without trailing slash; `{name}` marks a path parameter. Both `/x` and `/x/` are served. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** The operation's request schema (none: the route takes no parameters). */
  request?: RequestSchema;
  /** Fields of the request schema that come from the path. */
  pathParams?: readonly string[];
  /** The resolver method: its class and the method's name (the family is its guard's). */
  resolver: readonly [ResolverClass, string];
  /** The method's arguments after the context (default: the parameters, as one object). */
  args?(values: Values): unknown[];
  /** The documented answer of the method's result. */
  present(result: Result, values: Values): RouteAnswer;
  /** Documented responses other than the shared error responses. */
  responses: Record<number, ResponseDoc>;
  /** Conditional GET: the entity tag of the current answer (If-None-Match → 304) and how long it may be reused. */
  cache?: {
    etag(services: Services): Promise<string>;
    maxAgeSeconds(services: Services): number;
  };
}

/** A route of any parameters and result, as the table holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RestRoute<any, any>;

/** A route, typed by its request schema and the resolver method's result. */
export function route<S extends RequestSchema | undefined, Result>(
  entry: RestRoute<S extends RequestSchema ? z.input<S> : Record<string, never>, Result> & { request?: S },
): AnyRoute {
  return entry;
}
