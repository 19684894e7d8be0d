import type { ApolloServerPlugin } from '@apollo/server';
import {
  BREAK,
  DocumentNode,
  GraphQLError,
  GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import type { GraphQLContext } from '../resolvers/context';

/**
 * GRAPHQL_INTROSPECTION: what a caller may learn of the schema by asking it (`__schema`, `__type`).
 * - `key` (default): only callers with a valid key. The schema is no secret (it is committed as
 *   schema.graphql, and the REST contract is public), but an anonymous prober gets nothing beyond
 *   the keyless catalogue fields, and the explorer's docs appear once a key is in its headers.
 * - `public`: anyone, as GraphQL servers usually do.
 * - `off`: nobody, over HTTP and WebSocket alike (the explorer still runs queries, without docs).
 * `__typename` is not introspection of the schema and stays allowed.
 */
export type IntrospectionMode = 'key' | 'public' | 'off';

export function selectsIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Refuses introspection over HTTP to callers the mode excludes, before execution. */
export function introspectionPolicyPlugin(mode: IntrospectionMode): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      if (mode === 'public') return;
      return {
        async didResolveOperation({ document, contextValue }) {
          if (!selectsIntrospection(document)) return;
          if (mode === 'key' && contextValue.caller) return;
          throw mode === 'off'
            ? new GraphQLError('Introspection is turned off on this service', {
                extensions: { code: 'FORBIDDEN', http: { status: 403 } },
              })
            : new GraphQLError('Introspection needs a valid API key (x-api-key header)', {
                extensions: { code: 'UNAUTHENTICATED', http: { status: 403 } },
              });
        },
      };
    },
  };
}

/**
 * The validation of WebSocket operations: every WebSocket caller has a key (the connection is
 * refused otherwise), so only `off` changes anything there.
 */
export function webSocketValidation(mode: IntrospectionMode) {
  if (mode !== 'off') return undefined;
  const rules = [...specifiedRules, NoSchemaIntrospectionCustomRule];
  return (schema: GraphQLSchema, document: DocumentNode) => validate(schema, document, rules);
}
