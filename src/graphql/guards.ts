import type { GraphQLResolveInfo } from 'graphql';
import { createMethodMiddlewareDecorator, Extensions, MiddlewareFn } from 'type-graphql';
import type { Family } from '../plans/plan-catalog';
import { GraphQLContext, requireCaller } from './context';
import { publicRateLimiterFor } from './public-rate-limiter';
import { rateLimiterFor } from './rate-limiter';

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

/**
 * Every root field needs a valid API key, except the public catalogue's fields, marked with
 * @PublicField (limited per client address instead, never metered).
 */
export const AuthGuard: MiddlewareFn<GraphQLContext> = async ({ context, info }, next) => {
  if (ROOT_TYPES.has(info.parentType.name) && !isPublicField(info)) requireCaller(context);
  return next();
};

function isPublicField(info: GraphQLResolveInfo): boolean {
  return info.parentType.getFields()[info.fieldName]?.extensions?.public === true;
}

/** A root field anyone may call without a key: limited per client address (PUBLIC_RATE_LIMIT_PER_MINUTE). */
export function PublicField(): MethodDecorator {
  const mark = Extensions({ public: true }) as MethodDecorator;
  const limit = createMethodMiddlewareDecorator<GraphQLContext>(async ({ context }, next) => {
    publicRateLimiterFor(context.services).consume(context.clientIp);
    return next();
  });
  return (target, key, descriptor) => {
    mark(target, key, descriptor);
    limit(target, key, descriptor);
  };
}

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
