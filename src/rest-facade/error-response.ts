import type { Response } from 'express';
import { z } from 'zod';
import { AppError, httpStatusOf, RateLimitError, QuotaError, MethodNotAllowedError } from '../errors';
import { logger } from '../platform/logger';

/**
 * The one place where errors become HTTP responses (REST facade and express error handler):
 * `{code, message, ...safe details, requestId}`, the status from the error code, Retry-After on
 * 429 and Allow on 405. Unknown errors become a 500 with the request id, nothing else.
 */
export function sendError(res: Response, error: unknown, requestId: string): void {
  if (error instanceof AppError) {
    if (error instanceof RateLimitError || error instanceof QuotaError) {
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
    }
    if (error instanceof MethodNotAllowedError) res.setHeader('Allow', error.allowed.join(', '));
    res
      .status(httpStatusOf(error.code))
      .json({ code: error.code, message: error.message, ...error.details, requestId });
    return;
  }
  logger.error({ err: error, requestId }, 'unexpected error');
  res
    .status(500)
    .json({ code: 'INTERNAL', message: `Internal server error (request id ${requestId})`, requestId });
}

/** The error body of every 4xx/5xx answer of the REST API (published as components.schemas.Error). */
export const ErrorBodyShape = z
  .looseObject({
    code: z.string().describe('Stable error code, e.g. BAD_REQUEST, UNAUTHENTICATED, RATE_LIMITED'),
    message: z.string().describe('What went wrong, naming the parameter where one is at fault'),
    parameter: z.string().describe('The offending parameter (400 responses)').optional(),
    retryAfter: z
      .number()
      .int()
      .describe('Seconds to wait (429 responses; also the Retry-After header)')
      .optional(),
    requestId: z.string(),
  })
  .describe('Error body of every 4xx/5xx response of the REST API');
