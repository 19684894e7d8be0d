import { GraphQLSchema } from 'graphql';
import { buildSchema, NonEmptyArray } from 'type-graphql';
import { EventBus } from '../events/event-bus';
import { RESOLVERS } from '../resolvers';
import { AuthGuard } from './guards';

/**
 * Builds the executable schema once per process. The printed form is committed as schema.graphql
 * and a test fails when it drifts (`npm run schema:print` rewrites it).
 */
export async function buildAppSchema(events: EventBus): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS as unknown as NonEmptyArray<new (...args: never[]) => object>,
    pubSub: events,
    globalMiddlewares: [AuthGuard],
    validate: false,
  });
}
