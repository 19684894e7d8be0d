import type { NextFunction, Request, Response } from 'express';
import { MethodNotAllowedError } from '../errors';
import { buildContext } from '../resolvers/context';
import { guardOf } from '../resolvers/guards';
import { publicRateLimiterFor } from '../services/platform/public-rate-limiter';
import type { Services } from '../services/services';
import { sendError } from './error-response';
import { requestOrigin } from './request-origin';
import { paramsOf, readParams, restNamed, type RouteParam } from './params';
import type { AnyRoute, ResolverClass, RouteAnswer } from './route';
import { MatchResult, RouteMatcher } from './route-matcher';

interface PreparedRoute {
  route: AnyRoute;
  params: RouteParam[];
  public: boolean;
  call(context: object, values: Record<string, unknown>): Promise<unknown>;
}

/**
 * The REST facade: each documented path calls the resolver method GraphQL calls, on the same
 * context builder as /graphql, so auth, plans, limits, quotas and credits are enforced once, by the
 * guards on the method and the services behind it; the route's presenter then writes the
 * documented body. A route whose method declares no guard stops the boot.
 */
export function createFacadeHandler(services: Services, routes: readonly AnyRoute[]) {
  const matcher = new RouteMatcher(routes);
  const instances = new Map<ResolverClass, object>();
  const prepared = new Map<AnyRoute, PreparedRoute>();
  for (const route of routes) {
    const [resolverClass, methodName] = route.resolver;
    const guard = guardOf(resolverClass, methodName);
    if (!guard)
      throw new Error(
        `Route ${route.method} ${route.path}: ${resolverClass.name}.${methodName} has no guard`,
      );
    let instance = instances.get(resolverClass);
    if (!instance) instances.set(resolverClass, (instance = new resolverClass()));
    const method = (instance as Record<string, (...args: unknown[]) => Promise<unknown>>)[methodName];
    const args = route.args ?? ((values: Record<string, unknown>) => [values]);
    prepared.set(route, {
      route,
      params: paramsOf(route),
      public: guard.kind === 'public',
      call: (context, values) => method.call(instance, context, ...args(values)),
    });
  }
  const prefix = services.config.HEADER_PREFIX;
  const trustProxy = services.config.TRUST_PROXY;
  // Answers of cacheable routes, rendered once per entity tag: the catalogue's 7,500 technologies
  // are presented and serialised again only when the tag changes.
  const rendered = new Map<string, { etag: string; status: number; json: string }>();

  async function serve(req: Request, res: Response, match: MatchResult): Promise<void> {
    const requestId = res.locals.requestId as string;
    let params: readonly RouteParam[] = [];
    try {
      if (match.kind === 'wrong-method') throw new MethodNotAllowedError(req.method, req.path, match.allowed);
      if (match.kind !== 'match') return;
      const entry = prepared.get(match.route)!;
      const { route } = entry;
      params = entry.params;
      const context = await buildContext(
        services,
        req.get('x-api-key'),
        requestId,
        req.ip ?? '',
        requestOrigin(req, trustProxy),
      );
      if (!entry.public && !context.caller) throw context.authError!;
      const values = readParams(
        route,
        params,
        req.query as Record<string, unknown>,
        match.pathParams,
        req.body,
      );
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
          // The method is not called, so the public limit is counted here (its guard counts it otherwise).
          if (entry.public) await publicRateLimiterFor(services).consume(context.clientIp);
          if (notModified) res.status(304).end();
          else res.status(hit!.status).type('application/json').send(hit!.json);
          return;
        }
      }
      const answer: RouteAnswer = route.present(await entry.call(context, values), values);
      if (answer.status >= 200 && answer.status < 300 && !entry.public && context.caller) {
        const meter = context.caller.meter;
        const remaining =
          meter.remaining ?? (await services.credits.balance(context.caller.principal.accountId));
        res.setHeader(`${prefix}-credits-spent`, String(meter.spent));
        res.setHeader(`${prefix}-credits-remaining`, String(remaining));
      }
      for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
      if (req.method === 'HEAD') {
        res.status(answer.status).end();
        return;
      }
      const json = answer.json ?? JSON.stringify(answer.body);
      if (cacheKey !== undefined && etag !== undefined && answer.status === 200) {
        if (rendered.size >= MAX_RENDERED) rendered.clear();
        rendered.set(cacheKey, { etag, status: answer.status, json });
        res.status(answer.status).type('application/json').send(json);
        return;
      }
      sendJson(res, answer.status, json);
    } catch (error) {
      // An error is not the cacheable answer: drop the validators set for it.
      res.removeHeader('ETag');
      res.removeHeader('Cache-Control');
      sendError(res, restNamed(error, params), requestId);
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
    return match.kind === 'match' && !prepared.get(match.route)!.params.some((param) => param.in === 'body')
      ? match
      : null;
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

/** Rendered answers kept at most (the catalogue: two lists and the slugs asked for). */
const MAX_RENDERED = 2_000;

/** If-None-Match against the current tag: "*", or any listed tag (weak comparison, RFC 9110 13.1.2). */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
