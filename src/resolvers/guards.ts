import type { GraphQLSchema } from 'graphql';
import { createMethodMiddlewareDecorator, Extensions } from 'type-graphql';
import type { Family } from '../plans/plan-catalog';
import { GraphQLContext, requireCaller } from './context';
import { publicRateLimiterFor } from '../services/platform/public-rate-limiter';
import { rateLimiterFor } from '../services/platform/rate-limiter';

/**
 * Every root field needs a valid API key, except the public catalogue's fields, marked with
 * @PublicField (limited per client address instead, never metered). The check wraps the root
 * fields' resolvers once, after the schema is built, rather than running as a type-graphql global
 * middleware: a global middleware runs (asynchronously) for every field of every object of a
 * response, which made a 7,500-item list spend most of its time in promises and garbage collection
 * (measured: the technology catalogue took 6-9 s instead of under one).
 */
export function guardRootFields(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (field.extensions?.public === true) continue;
      const { resolve, subscribe } = field;
      if (resolve) {
        field.resolve = (source, args, context: GraphQLContext, info) => {
          requireCaller(context);
          return resolve(source, args, context, info);
        };
      }
      if (subscribe) {
        field.subscribe = (source, args, context: GraphQLContext, info) => {
          requireCaller(context);
          return subscribe(source, args, context, info);
        };
      }
    }
  }
}

/** A root field anyone may call without a key: limited per client address (PUBLIC_RATE_LIMIT_PER_MINUTE). */
export function PublicField(): MethodDecorator {
  const mark = Extensions({ public: true }) as MethodDecorator;
  const limit = createMethodMiddlewareDecorator<GraphQLContext>(async ({ context }, next) => {
    await publicRateLimiterFor(context.services).consume(context.clientIp);
    return next();
  });
  return (target, key, descriptor) => {
    mark(target, key, descriptor);
    limit(target, key, descriptor);
  };
}

/**
 * Marks a root field as belonging to an endpoint family: its calls are rate-limited per key and
 * family (src/graphql/rate-limiter.ts) before the resolver runs.
 */
export function RateLimited(family: Family): MethodDecorator {
  return createMethodMiddlewareDecorator<GraphQLContext>(async ({ context }, next) => {
    await rateLimiterFor(context.services).consume(requireCaller(context).principal, family);
    return next();
  });
}
