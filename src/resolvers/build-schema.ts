import { GraphQLSchema } from 'graphql';
import { buildSchema, getMetadataStorage, NonEmptyArray } from 'type-graphql';
import { EventBus } from '../platform/event-bus';
import { RESOLVERS } from './';
import { checkRootGuards, guardOf } from './guards';

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
  checkRootGuards(schema, guardedRootFields());
  return schema;
}

/**
 * Plain data fields resolve with graphql-js's default resolver. Otherwise type-graphql wraps every
 * field of every object in its middleware runner, among the largest costs of a stored lookup's
 * hundreds of fields (docs/performance.md). Methods marked
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

/** The query and mutation fields whose resolver methods declare a guard (see guards.ts). */
function guardedRootFields(): Set<string> {
  const storage = getMetadataStorage();
  const guarded = new Set<string>();
  for (const field of [...storage.queries, ...storage.mutations]) {
    if (guardOf(field.target as new () => object, field.methodName)) guarded.add(field.schemaName);
  }
  return guarded;
}

/** The query fields anyone may call without a key (@PublicField): the public catalogue. */
export function publicRootFields(): Set<string> {
  const storage = getMetadataStorage();
  const fields = new Set<string>();
  for (const field of storage.queries) {
    if (guardOf(field.target as new () => object, field.methodName)?.kind === 'public')
      fields.add(field.schemaName);
  }
  return fields;
}
