import { createHash } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { NextFunction, Request, Response } from 'express';
import { GraphQLSchema } from 'graphql';
import { AppError, NotFoundError, PayloadTooLargeError, ValidationError } from '../errors';
import { buildContext, GraphQLContext } from '../resolvers/context';
import { createFacadeHandler } from '../rest-facade/facade-router';
import { requestOrigin } from '../rest-facade/request-origin';
import { buildOpenApiDocument, renderOpenApiYaml } from '../rest-facade/openapi';
import { ROUTE_TABLE } from '../rest-facade/route-table';
import { DatasetOrderShape } from '../services/datasets/datasets.contract';
import { logger } from '../platform/logger';
import { sendError } from '../rest-facade/error-response';
import type { Services } from '../services/services';
import { metricsRouter, requestMetricsMiddleware } from './metrics.routes';
import { docsRouter, explorerRouter, homeRouter } from './operator-pages';
import { type ExpressShapedMessages, withBodylessLane } from './bodyless-lane';
import { createListDownloadHandler } from './list-downloads';
import { requestIdMiddleware } from './request-id';
import { corsMiddleware } from './cors';

/**
 * The HTTP surface: /healthz, the OpenAPI document, /graphql (Apollo) and the REST facade, with
 * one JSON error shape for everything that goes wrong, including malformed or oversized bodies;
 * as Node's request listener, with the facade's bodyless GETs answered beside Express's router.
 */
export async function createApp(
  services: Services,
  schema: GraphQLSchema,
  apollo: ApolloServer<GraphQLContext>,
  messages: ExpressShapedMessages,
) {
  const app = express();
  messages.link(app);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // No ETag computed by Express over every answer: it costs a SHA-1 of each body, metered lookups
  // included, and would answer 304 to a request that was charged. Answers that can be revalidated
  // set their own (the catalogue routes, the OpenAPI document).
  app.set('etag', false);
  // Behind a reverse proxy (TRUST_PROXY) req.ip is the address that proxy saw: one hop trusted.
  app.set('trust proxy', services.config.TRUST_PROXY ? 1 : false);
  const before = [requestIdMiddleware, requestMetricsMiddleware(services, ROUTE_TABLE)];
  if (services.config.CORS_ORIGINS.length > 0) before.push(corsOf(services.config));
  for (const middleware of before) app.use(middleware);
  const facade = createFacadeHandler(services, ROUTE_TABLE);
  app.use(facade.bodyless);
  app.use(metricsRouter(services));
  app.use(docsRouter(services.config));
  app.use(explorerRouter(services.config));
  app.use(homeRouter(services.config));

  app.get('/healthz', async (_req, res) => {
    const { healthy, database } = await services.health.health();
    res.setHeader('Cache-Control', 'no-store');
    if (healthy) res.json({ status: 'ok', database });
    else res.status(503).json({ status: 'unavailable', database });
  });
  app.get('/readyz', async (_req, res) => {
    const { ready, ...checks } = await services.health.readiness();
    res.setHeader('Cache-Control', 'no-store');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', ...checks });
  });

  const openApiYaml = renderOpenApiYaml(
    buildOpenApiDocument(ROUTE_TABLE, {
      serverUrl: services.config.PUBLIC_BASE_URL,
      headerPrefix: services.config.HEADER_PREFIX,
      publicRateLimitPerMinute: services.config.PUBLIC_RATE_LIMIT_PER_MINUTE,
      components: { DatasetOrder: DatasetOrderShape },
    }),
  );
  const openApiTag = `"${createHash('sha256').update(openApiYaml).digest('base64url').slice(0, 27)}"`;
  app.get('/openapi/v2-public.yaml', (_req, res) => {
    // res.send answers 304 when the request's If-None-Match names this tag.
    res.setHeader('ETag', openApiTag);
    res.type('application/yaml').send(openApiYaml);
  });

  app.use(
    express.json({
      limit: services.config.REQUEST_BODY_LIMIT_BYTES,
      type: ['application/json', 'application/*+json'],
    }),
  );

  app.use(
    '/graphql',
    expressMiddleware(apollo, {
      context: async ({ req, res }) =>
        buildContext(
          services,
          req.get('x-api-key'),
          res.locals.requestId as string,
          req.ip ?? '',
          requestOrigin(req, services.config.TRUST_PROXY),
        ),
    }),
  );

  app.get('/v2/lists/:id/files/:file', createListDownloadHandler(services));
  app.use(facade);

  app.use((req: Request, res: Response) => {
    sendError(
      res,
      new NotFoundError(`No such endpoint: ${req.method} ${req.path}`),
      res.locals.requestId as string,
    );
  });

  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if ((error as { type?: string } | null)?.type === 'request.aborted') {
      // The client went away mid-body: nobody is left to answer, and it is not our fault.
      logger.info({ requestId: res.locals.requestId as string }, 'client aborted the request body');
    }
    sendError(res, translateBodyError(error), res.locals.requestId as string);
  });

  return withBodylessLane(app, { match: facade.bodylessMatch, before, serve: facade.serve });
}

/** CORS for the API's methods, exposing the credit headers, Retry-After and the request id. */
function corsOf(config: Services['config']) {
  return corsMiddleware({
    origins: config.CORS_ORIGINS,
    methods: [...new Set(['GET', 'POST', ...ROUTE_TABLE.map((route) => route.method)])],
    exposedHeaders: [
      `${config.HEADER_PREFIX}-credits-spent`,
      `${config.HEADER_PREFIX}-credits-remaining`,
      'Retry-After',
      'x-request-id',
      'ETag',
      'Content-Disposition',
    ],
  });
}

/** body-parser's errors carry a `type` (or at least a 4xx status); they become our own 400/413 errors. */
function translateBodyError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { type, status, expose } = (error ?? {}) as { type?: string; status?: unknown; expose?: unknown };
  if (type === 'entity.parse.failed')
    return new ValidationError('body', 'The request body is not valid JSON');
  if (type === 'entity.too.large') return new PayloadTooLargeError('The request body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new ValidationError('body', 'The request body encoding is not supported');
  }
  if (type === 'request.aborted') return new ValidationError('body', 'The client aborted the request body');
  // http-errors marks the client's faults as exposable 4xx: a compressed body that does not
  // decompress, a body shorter or longer than its content-length.
  if (typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    return new ValidationError(
      'body',
      'The request body could not be read (corrupt compression or a wrong content-length)',
    );
  }
  return error;
}
