import type { NextFunction, Request, Response } from 'express';
import { compileQuery, CompiledQuery, isCompiledQuery } from 'graphql-jit';
import { DocumentNode, execute, GraphQLError, GraphQLSchema, parse, validate } from 'graphql';
import { MethodNotAllowedError, ValidationError } from '../errors';
import { buildContext } from '../resolvers/context';
import { publicRateLimiterFor } from '../services/platform/public-rate-limiter';
import type { Services } from '../services/services';
import { sendError } from './error-response';
import type { RestRoute } from './route';
import { MatchResult, RouteMatcher } from './route-matcher';

interface PreparedRoute {
  route: RestRoute;
  document: DocumentNode;
  /** The operation compiled by graphql-jit (null: it could not be, graphql-js executes it). */
  compiled: CompiledQuery | null;
}

/**
 * The REST facade: each documented path runs its GraphQL operation on the same schema and context
 * builder as /graphql, so auth, plans, limits, quotas and credits are enforced in one place.
 * Operations are parsed and validated once at start-up (a broken entry stops the boot) and
 * compiled with graphql-jit into plain functions over the same resolvers: a CPU profile of a stored
 * lookup (six months of fifteen technologies, ~450 fields) put graphql-js's generic execution among
 * the largest costs of the request, and the compiled form skips its per-field bookkeeping. The
 * answers are the same; an operation graphql-jit cannot compile runs through graphql-js `execute`.
 */
export function createFacadeHandler(schema: GraphQLSchema, services: Services, routes: readonly RestRoute[]) {
  const matcher = new RouteMatcher(routes);
  const prepared = new Map<RestRoute, PreparedRoute>();
  for (const route of routes) {
    const document = parse(typeof route.operation === 'string' ? route.operation : route.operation(schema));
    const errors = validate(schema, document);
    if (errors.length > 0) {
      throw new Error(
        `Route ${route.method} ${route.path}: invalid operation: ${errors.map((e) => e.message).join('; ')}`,
      );
    }
    const compiled = compileQuery(schema, document);
    prepared.set(route, { route, document, compiled: isCompiledQuery(compiled) ? compiled : null });
  }
  const prefix = services.config.HEADER_PREFIX;
  // Answers of cacheable routes, rendered once per entity tag: the catalogue's 7,500 technologies
  // cost a GraphQL execution of ~100,000 fields, which need not be paid again until the tag changes.
  const rendered = new Map<string, { etag: string; status: number; json: string }>();

  async function serve(req: Request, res: Response, match: MatchResult): Promise<void> {
    const requestId = res.locals.requestId as string;
    try {
      if (match.kind === 'wrong-method') throw new MethodNotAllowedError(req.method, req.path, match.allowed);
      if (match.kind !== 'match') return;
      const { route, document, compiled } = prepared.get(match.route)!;
      const context = await buildContext(services, req.get('x-api-key'), requestId, req.ip ?? '');
      if (!route.public && !context.caller) throw context.authError!;
      const values = readParams(route, req, match.pathParams);
      let cacheKey: string | undefined;
      let etag: string | undefined;
      if (route.cache) {
        etag = await route.cache.etag(services);
        const maxAge = route.cache.maxAgeSeconds(services);
        res.setHeader('ETag', etag);
        res.setHeader('Cache-Control', maxAge > 0 ? `public, max-age=${maxAge}` : 'no-cache');
        cacheKey = `${route.operationId} ${JSON.stringify(values)}`;
        const hit = rendered.get(cacheKey);
        const notModified = etagMatches(req.get('if-none-match'), etag);
        if (notModified || hit?.etag === etag) {
          // Not executed, so the public limit is counted here (the GraphQL field counts it otherwise).
          if (route.public) await publicRateLimiterFor(services).consume(context.clientIp);
          if (notModified) res.status(304).end();
          else res.status(hit!.status).type('application/json').send(hit!.json);
          return;
        }
      }
      const variableValues = route.variables(values);
      const result = compiled
        ? // eslint-disable-next-line no-restricted-syntax -- graphql-jit's compiled operation, not SQL
          await compiled.query(undefined, context, variableValues)
        : await execute({ schema, document, variableValues, contextValue: context });
      if (result.errors?.length) throw unwrap(result.errors[0]);
      const response = route.respond(result.data as Record<string, unknown>, values);
      if (response.status >= 200 && response.status < 300 && !route.public && context.caller) {
        const meter = context.caller.meter;
        const remaining =
          meter.remaining ?? (await services.credits.balance(context.caller.principal.accountId));
        res.setHeader(`${prefix}-credits-spent`, String(meter.spent));
        res.setHeader(`${prefix}-credits-remaining`, String(remaining));
      }
      for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
      if (req.method === 'HEAD') {
        res.status(response.status).end();
        return;
      }
      if (cacheKey !== undefined && etag !== undefined && response.status === 200) {
        const json = response.json ?? JSON.stringify(response.body);
        if (rendered.size >= MAX_RENDERED) rendered.clear();
        rendered.set(cacheKey, { etag, status: response.status, json });
        res.status(response.status).type('application/json').send(json);
        return;
      }
      sendJson(res, response.status, response.json ?? JSON.stringify(response.body));
    } catch (error) {
      // An error is not the cacheable answer: drop the validators set for it.
      res.removeHeader('ETag');
      res.removeHeader('Cache-Control');
      sendError(res, error, requestId);
    }
  }

  const facade = (req: Request, res: Response, next: NextFunction): Promise<void> | void => {
    const match = matcher.match(req.method, req.path);
    return match.kind === 'none' ? next() : serve(req, res, match);
  };
  /** The route of a request that carries no body and that a facade route taking no body answers. */
  const bodylessMatch = (req: Request): MatchResult | null => {
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined)
      return null;
    const match = matcher.match(req.method, req.path);
    return match.kind === 'match' && !match.route.params.some((param) => param.in === 'body') ? match : null;
  };
  /**
   * The routes that take no body (every GET, the stored lookups among them), answered where this
   * is mounted: before the body parser and the service's other paths, whose layers every facade
   * request otherwise passed through (Express tries each in turn). Anything else goes on to the
   * full handler, mounted after the body parser, which also answers 405; so does a request that
   * carries a body anyway (the body parser still refuses a malformed or oversized one). GETs come
   * here from src/http/bodyless-lane.ts without Express's router; HEAD and the others through it.
   */
  const bodyless = (req: Request, res: Response, next: NextFunction): Promise<void> | void => {
    const match = bodylessMatch(req);
    return match ? serve(req, res, match) : next();
  };
  return Object.assign(facade, { bodyless, bodylessMatch, serve });
}

/**
 * An answer that is not revalidated, written straight to Node's response (the headers set so far
 * kept): Express's send would parse the content type back to add a charset and test freshness on
 * every stored lookup. HEAD is answered before this, without a body.
 */
function sendJson(res: Response, status: number, json: string): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** Reads and validates every parameter; unknown query parameters are refused by name (typos surface). */
function readParams(
  route: RestRoute,
  req: Request,
  pathParams: Record<string, string>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const query = req.query as Record<string, unknown>;
  const known = new Set(route.params.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of Object.keys(query)) {
    if (!known.has(name))
      throw new ValidationError(name, `Unknown parameter ${name} for ${route.method} ${route.path}/`);
  }
  const body = route.params.some((p) => p.in === 'body') ? readBody(req) : {};
  for (const param of route.params) {
    const raw =
      param.in === 'query'
        ? query[param.name]
        : param.in === 'path'
          ? pathParams[param.name]
          : body[param.name];
    if (raw === undefined || raw === null || raw === '') {
      if (param.required) throw new ValidationError(param.name, `${param.name} is required`);
      continue;
    }
    values[param.name] = param.parse(raw);
  }
  return values;
}

function readBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('body', 'The request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** Rendered answers kept at most (the catalogue: two lists and the slugs asked for). */
const MAX_RENDERED = 2_000;

/** If-None-Match against the current tag: "*", or any listed tag (weak comparison, RFC 9110 13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}

/** The service error behind a GraphQL error; a GraphQL-level error here is a route-table bug (500). */
function unwrap(error: GraphQLError): unknown {
  return error.originalError ?? new Error(`GraphQL error in a facade operation: ${error.message}`);
}
