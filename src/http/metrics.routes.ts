import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import express from 'express';
import { logger } from '../platform/logger';
import { RouteMatcher } from '../rest-facade/route-matcher';
import type { RestRoute } from '../rest-facade/route';
import type { Services } from '../services/services';

/** Paths outside the REST facade, labelled by their family (assets under /docs count as /docs). */
const FAMILIES: readonly [prefix: string, label: string][] = [
  ['/graphql', '/graphql'],
  ['/healthz', '/healthz'],
  ['/readyz', '/readyz'],
  ['/metrics', '/metrics'],
  ['/openapi/', '/openapi'],
  ['/docs', '/docs'],
];

/**
 * Counts every answer by method, route template and status. The label is the documented route
 * template (`/v2/technologies/{slug}`), never the request path, so no URL or id reaches a label
 * and the number of series stays bounded.
 */
export function requestMetricsMiddleware(services: Services, routes: readonly RestRoute[]) {
  const matcher = new RouteMatcher(routes);
  const routeOf = (path: string, method: string): string => {
    const match = matcher.match(method, path);
    if (match.kind === 'match') return match.route.path;
    for (const [prefix, label] of FAMILIES) if (path === label || path.startsWith(prefix)) return label;
    return 'unmatched';
  };
  const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = services.metrics.httpDuration.startTimer();
    res.once('finish', () => {
      const labels = {
        method: methods.has(req.method) ? req.method : 'OTHER',
        route: routeOf(req.path, req.method),
        status: String(res.statusCode),
      };
      end(labels);
      services.metrics.httpRequests.inc(labels);
    });
    next();
  };
}

/**
 * GET /metrics in Prometheus text format, only when METRICS_TOKEN is set (otherwise the path is
 * not served at all), and only with `Authorization: Bearer <METRICS_TOKEN>`.
 */
export function metricsRouter(services: Services): Router {
  const router = express.Router();
  const token = services.config.METRICS_TOKEN;
  if (!token) return router;
  services.metrics.collectProcessMetrics();
  const expected = digest(token);
  router.get('/metrics', async (req, res) => {
    const requestId = res.locals.requestId as string;
    const header = req.get('authorization') ?? '';
    const presented = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      // 401 (not the API's 403): this is HTTP bearer authentication, so the challenge header applies.
      res.status(401).json({
        code: 'UNAUTHENTICATED',
        message: 'The metrics endpoint needs Authorization: Bearer <METRICS_TOKEN>',
        requestId,
      });
      return;
    }
    try {
      services.metrics.applyStoredFigures(await services.figures.read());
    } catch (error) {
      // The process figures are still worth serving when the database is briefly away.
      logger.warn({ err: error, requestId }, 'metrics: could not read the stored figures');
    }
    res.setHeader('Cache-Control', 'no-store');
    res.type(services.metrics.contentType).send(await services.metrics.render());
  });
  return router;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
