import { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { AppError } from '../errors';
import { logger } from '../logger';

/**
 * Maps errors once for GraphQL: an AppError keeps its message and gets extensions.code (plus its
 * safe details); GraphQL's own errors (syntax, validation) pass as they are; anything else is an
 * internal error whose details stay in the log, never in the response.
 */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  if (original instanceof AppError) {
    return {
      ...formatted,
      message: original.message,
      extensions: { ...original.details, code: original.code },
    };
  }
  const code = formatted.extensions?.code;
  if (code && code !== 'INTERNAL_SERVER_ERROR') return formatted;
  logger.error({ err: original }, 'unexpected GraphQL error');
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL' } };
}
