import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { logger } from '../platform/logger';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Gives every request an id (the caller's x-request-id when it is sane, else a new UUID), echoes
 * it in the response, and writes one structured access-log line with no secrets: the path
 * without its query string, the status and the duration.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const requestId = incoming && SAFE_ID.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = requestId;
  res.setHeader('x-request-id', requestId);
  const started = process.hrtime.bigint();
  // Read now: a mounted handler (Apollo at /graphql) that ends the response leaves req.path relative to its mount.
  const path = req.path;
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    logger.info(
      { requestId, method: req.method, path, status: res.statusCode, ms: Math.round(ms) },
      'request',
    );
  });
  next();
}
