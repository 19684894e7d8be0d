import { dirname, join } from 'node:path';
import express, { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import helmet from 'helmet';
import type { Config } from '../platform/config';
import { SERVICE_PACKAGE } from '../platform/service-version';
import { DOCS_INIT_JS, EXPLORER_INIT_JS } from './pages/page-scripts';

/** A file inside an installed npm package (the browser assets ship in the packages themselves). */
function packageFile(pkg: string, file: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), file);
}

type Asset = { file: string } | { text: string; type: string };

const DOCS_ASSETS: Record<string, Asset> = {
  'swagger-ui.css': { file: packageFile('swagger-ui-dist', 'swagger-ui.css') },
  'swagger-ui-bundle.js': { file: packageFile('swagger-ui-dist', 'swagger-ui-bundle.js') },
  'favicon-32x32.png': { file: packageFile('swagger-ui-dist', 'favicon-32x32.png') },
  'docs-init.js': { text: DOCS_INIT_JS, type: 'text/javascript' },
};

const EXPLORER_ASSETS: Record<string, Asset> = {
  'react.production.min.js': { file: packageFile('react', 'umd/react.production.min.js') },
  'react-dom.production.min.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js') },
  'graphql-ws.min.js': { file: packageFile('graphql-ws', 'umd/graphql-ws.min.js') },
  'graphiql.min.js': { file: packageFile('graphiql', 'graphiql.min.js') },
  'graphiql.min.css': { file: packageFile('graphiql', 'graphiql.min.css') },
  'explorer-init.js': { text: EXPLORER_INIT_JS, type: 'text/javascript' },
};

const DOCS_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>API reference</title>
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" />
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/assets/docs-init.js"></script>
  </body>
</html>
`;

const EXPLORER_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>GraphQL explorer</title>
    <link rel="stylesheet" href="/graphql/assets/graphiql.min.css" />
  </head>
  <body style="margin: 0" data-introspection="INTROSPECTION_MODE">
    <div id="graphiql" style="height: 100vh">Loading the explorer…</div>
    <script src="/graphql/assets/react.production.min.js"></script>
    <script src="/graphql/assets/react-dom.production.min.js"></script>
    <script src="/graphql/assets/graphql-ws.min.js"></script>
    <script src="/graphql/assets/graphiql.min.js"></script>
    <script src="/graphql/assets/explorer-init.js"></script>
  </body>
</html>
`;

/**
 * Security headers of the human-facing pages (helmet): scripts, styles, images and connections
 * only from the service itself (`'self'` covers the same-origin WebSocket of subscriptions), no
 * framing, no plugins. Inline styles are allowed because both UIs set style attributes.
 */
function securityHeaders(config: Config): RequestHandler {
  if (!config.SECURITY_HEADERS_ENABLED) return (_req, _res, next) => next();
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    // TLS is the operator's proxy's business; a page served over plain HTTP must not pin HSTS.
    strictTransportSecurity: false,
  });
}

function serveAssets(assets: Record<string, Asset>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const name = String(req.params.name);
    const asset = Object.prototype.hasOwnProperty.call(assets, name) ? assets[name] : undefined;
    if (!asset) return next();
    // The assets change only with an upgrade of their package; a day's reuse is safe.
    res.setHeader('Cache-Control', 'public, max-age=86400');
    if ('text' in asset) {
      res.type(asset.type).send(asset.text);
      return;
    }
    res.sendFile(asset.file, { dotfiles: 'deny' }, (error) => {
      if (error && !res.headersSent) next(error);
    });
  };
}

function sendPage(html: string): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.type('html').send(html);
  };
}

/** GET /docs (REST reference) and its assets; nothing when DOCS_ENABLED=false. */
export function docsRouter(config: Config): Router {
  const router = express.Router();
  if (!config.DOCS_ENABLED) return router;
  const headers = securityHeaders(config);
  router.get(['/docs', '/docs/'], headers, sendPage(DOCS_HTML));
  router.get('/docs/assets/:name', headers, serveAssets(DOCS_ASSETS));
  return router;
}

/**
 * GET /graphql from a browser (Accept prefers text/html, no `query` parameter) answers the
 * explorer; every other GET or POST goes on to Apollo. Nothing when GRAPHQL_EXPLORER_ENABLED=false.
 */
export function explorerRouter(config: Config): Router {
  const router = express.Router();
  if (!config.GRAPHQL_EXPLORER_ENABLED) return router;
  const headers = securityHeaders(config);
  const page = sendPage(EXPLORER_HTML.replace('INTROSPECTION_MODE', config.GRAPHQL_INTROSPECTION));
  router.get('/graphql', (req, res, next) => {
    const wantsPage =
      req.query.query === undefined && req.accepts(['application/json', 'text/html']) === 'text/html';
    if (!wantsPage) return next();
    headers(req, res, () => page(req, res, next));
  });
  router.get('/graphql/assets/:name', headers, serveAssets(EXPLORER_ASSETS));
  return router;
}

/** Where a newcomer goes from `/`: each path, or null for a page an operator turned off. */
export function homeLinks(config: Config) {
  return {
    service: SERVICE_PACKAGE.name,
    version: SERVICE_PACKAGE.version,
    documentation: config.DOCS_ENABLED ? '/docs' : null,
    openapi: '/openapi/v2-public.yaml',
    graphql: '/graphql',
    explorer: config.GRAPHQL_EXPLORER_ENABLED ? '/graphql' : null,
    health: '/healthz',
    readiness: '/readyz',
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function homeHtml(links: ReturnType<typeof homeLinks>): string {
  const item = (href: string | null, label: string, note: string) =>
    href === null ? '' : `      <li><a href="${escapeHtml(href)}">${label}</a>: ${note}</li>\n`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(links.service)}</title>
  </head>
  <body>
    <h1>${escapeHtml(links.service)} ${escapeHtml(links.version)}</h1>
    <ul>
${item(links.documentation, 'API reference', 'the REST API, with a form to try each call')}\
${item(links.openapi, 'OpenAPI document', 'the REST API as YAML, for client generators')}\
${item(links.explorer, 'GraphQL explorer', 'write and run GraphQL queries in the browser')}\
      <li>GraphQL endpoint: <code>POST ${escapeHtml(links.graphql)}</code> (subscriptions over WebSocket)</li>
      <li><a href="${links.health}">Health</a> and <a href="${links.readiness}">readiness</a></li>
    </ul>
    <p>Calls take an API key in the <code>x-api-key</code> header.</p>
  </body>
</html>
`;
}

/**
 * GET / names the service's entry points: JSON by default, a small page of links for a browser
 * (Accept preferring text/html), instead of a 404 to whoever opens the address first.
 */
export function homeRouter(config: Config): Router {
  const router = express.Router();
  const links = homeLinks(config);
  const json = JSON.stringify(links);
  const html = homeHtml(links);
  const headers = securityHeaders(config);
  router.get('/', (req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      headers(req, res, () => res.type('html').send(html));
      return;
    }
    res.type('application/json').send(json);
  });
  return router;
}
