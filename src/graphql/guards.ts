import { createMethodMiddlewareDecorator, MiddlewareFn } from 'type-graphql';
import type { Family } from '../plans/plan-catalog';
import { GraphQLContext, requireCaller } from './context';
import { rateLimiterFor } from './rate-limiter';

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/** Every root field needs a valid API key: there is no anonymous access to anything. */
export const AuthGuard: MiddlewareFn<GraphQLContext> = async ({ context, info }, next) => {
  if (ROOT_TYPES.has(info.parentType.name)) requireCaller(context);
  return next();
};

/**
 * Marks a root field as belonging to an endpoint family: its calls are rate-limited per key and
 * family (graphql-rate-limit, in src/graphql/rate-limiter.ts) before the resolver runs.
 */
export function RateLimited(family: Family): MethodDecorator {
  return createMethodMiddlewareDecorator<GraphQLContext>(async ({ context }, next) => {
    await rateLimiterFor(context.services).consume(requireCaller(context).principal, family);
    return next();
  });
}
