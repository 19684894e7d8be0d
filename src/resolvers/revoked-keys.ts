import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';

/**
 * A key revoked before a request arrived is refused by it, wherever it was revoked, though the key
 * may come from the key cache (AuthService). A metered call needs nothing more: its settlement
 * checks the key, in the transaction that counts and charges it, before the answer. Every other
 * root field that needs a key (not the public catalogue) asks AuthService.refuseIfRevoked:
 * - a mutation before it runs (a revoked key changes nothing);
 * - a query once it has run, unless it was metered (`meter.remaining` is set by a settlement, as
 *   the credit headers read it): the answer is replaced by the refusal. The stored lookups, the
 *   hot path, are metered queries: they pay no read for this.
 * Subscriptions are checked by the WebSocket server (each connection and each event).
 */
export function refuseRevokedKeys(schema: GraphQLSchema): void {
  const query = schema.getQueryType();
  const mutation = schema.getMutationType();
  for (const type of [query, mutation]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, GraphQLContext> | undefined;
      if (field.extensions?.public === true || !resolve) continue;
      field.resolve =
        type === mutation
          ? async (source, args, context, info) => {
              if (context.caller) await context.services.auth.refuseIfRevoked(context.caller.principal);
              return resolve(source, args, context, info);
            }
          : async (source, args, context, info) => {
              let result: unknown;
              try {
                result = await resolve(source, args, context, info);
              } catch (error) {
                // A revoked key's refusal outranks whatever else went wrong.
                await refuseUnlessSettled(context);
                throw error;
              }
              await refuseUnlessSettled(context);
              return result;
            };
    }
  }
}

async function refuseUnlessSettled(context: GraphQLContext): Promise<void> {
  const caller = context.caller;
  if (!caller || caller.meter.remaining !== null) return;
  await context.services.auth.refuseIfRevoked(caller.principal);
}
