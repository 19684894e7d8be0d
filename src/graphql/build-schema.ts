import { GraphQLSchema } from 'graphql';
import { buildSchema, NonEmptyArray } from 'type-graphql';
import { EventBus } from '../events/event-bus';
import { RESOLVERS } from '../resolvers';
import { guardRootFields } from './guards';

/**
 * Builds the executable schema once per process. The printed form is committed as schema.graphql
 * and a test fails when it drifts (`npm run schema:print` rewrites it).
 */
export async function buildAppSchema(events: EventBus): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: RESOLVERS as unknown as NonEmptyArray<new (...args: never[]) => object>,
    pubSub: events,
    validate: false,
  });
  guardRootFields(schema);
  return schema;
}
