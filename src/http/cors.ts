import type { NextFunction, Request, Response } from 'express';

export interface CorsOptions {
  /** CORS_ORIGINS: exact origins (`https://dash.example.com`), or `*` for any. */
  origins: readonly string[];
  /** The methods of the API, answered to a preflight. */
  methods: readonly string[];
  /** Response headers a page on another origin may read (the credit headers, Retry-After …). */
  exposedHeaders: readonly string[];
}

/** What a page may send: its key, a JSON body, its own request id. */
const ALLOWED_REQUEST_HEADERS = 'content-type, x-api-key, x-request-id';

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Cross-origin requests from browsers (a dashboard served elsewhere): for an allowed Origin, the
 * answer names it in Access-Control-Allow-Origin and exposes the credit and rate-limit headers, and
 * a preflight (OPTIONS with Access-Control-Request-Method) is answered 204 here with the API's
 * methods and the headers a call sends. Other origins get no CORS headers, so their browsers keep
 * the answers from the page, as with no CORS at all. No credentials: the key travels in x-api-key,
 * not in a cookie. It runs before everything else of a request, the bodyless lane's included.
 */
export function corsMiddleware(options: CorsOptions) {
  const anyOrigin = options.origins.includes('*');
  const allowed = new Set(options.origins);
  const methods = options.methods.join(', ');
  const exposed = options.exposedHeaders.join(', ');
  return (req: Request, res: Response, next: NextFunction): void => {
    // The answer differs by Origin: caches must keep one per origin.
    if (!anyOrigin) res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !(anyOrigin || allowed.has(origin))) return next();
    res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', methods);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      res.statusCode = 204;
      res.end();
      return;
    }
    res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
}
