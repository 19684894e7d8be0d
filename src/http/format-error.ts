import { GraphQLError, GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { AppError } from '../errors';
import { logger } from '../platform/logger';

/**
 * Maps errors once for GraphQL: an AppError keeps its message and gets extensions.code (plus its
 * safe details); GraphQL's own errors (syntax, validation) pass as they are; anything else is an
 * internal error whose details stay in the log, never in the response.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const unwrapped = unwrapResolverError(error);
  // An AppError a plugin hook wrapped to give it an HTTP status (public-operations.ts) is still ours.
  const original =
    unwrapped instanceof GraphQLError && unwrapped.originalError instanceof AppError
      ? unwrapped.originalError
      : unwrapped;
  if (original instanceof AppError) {
    return {
      ...formatted,
      message: original.message,
      extensions: { ...original.details, code: original.code },
    };
  }
  const code = formatted.extensions?.code;
  if (code && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  // Apollo refuses some requests itself with a 4xx and no code (a persisted-query hash that does
  // not match its query): the caller's mistake, said as it is.
  const status =
    original instanceof GraphQLError ? (original.extensions?.http as { status?: number })?.status : 0;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { message: formatted.message, extensions: { code: 'BAD_REQUEST' } };
  }
  logger.error({ err: original }, 'unexpected GraphQL error');
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL' } };
}
