import { GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage, NonEmptyArray } from 'type-graphql';
import { EventBus } from '../platform/event-bus';
import { RESOLVERS } from './';
import { guardRootFields } from './guards';
import { refuseRevokedKeys } from './revoked-keys';

/**
 * Builds the executable schema once per process. The printed form is committed as schema.graphql
 * and a test fails when it drifts (`npm run schema:print` rewrites it).
 */
export async function buildAppSchema(events: EventBus): Promise<GraphQLSchema> {
  useDefaultFieldResolvers();
  const schema = await buildSchema({
    resolvers: RESOLVERS as unknown as NonEmptyArray<new (...args: never[]) => object>,
    pubSub: events,
    validate: false,
  });
  guardRootFields(schema);
  refuseRevokedKeys(schema);
  return schema;
}

/**
 * Plain data fields resolve with graphql-js's default resolver. Otherwise type-graphql wraps every
 * field of every object in its middleware runner, which a CPU profile of a stored lookup (6 months
 * x 15 technologies, ~450 fields) showed among the largest costs of the request. Methods marked
 * @FieldResolver keep their own resolvers (type-graphql prefers them), and no type here uses
 * per-field middlewares or renamed fields, which the default resolver could not honour: such a
 * type keeps type-graphql's resolvers.
 */
function useDefaultFieldResolvers(): void {
  const storage = getMetadataStorage();
  for (const type of storage.objectTypes) {
    const plain = storage.fields
      .filter((field) => field.target === type.target)
      .every((field) => !field.middlewares?.length && !field.roles && field.schemaName === field.name);
    if (plain && type.simpleResolvers === undefined) type.simpleResolvers = true;
  }
}
