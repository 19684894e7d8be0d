import { createHash } from 'node:crypto';
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { RateLimitError } from '../errors';
import type { GraphQLContext } from '../resolvers/context';
import { publicRateLimiterFor } from '../services/platform/public-rate-limiter';
import type { Services } from '../services/services';

/** Answers of public-only operations kept at most (each a catalogue answer of up to a few MB). */
const MAX_CACHED = 16;
/** Public fields whose answers change with every stored analysis, not with the catalogue's entity tag. */
const NOT_KEPT = new Set(['technologyTrend', 'categoryTrend']);

/**
 * The public catalogue over /graphql, costed like its REST twin. Anyone may ask for it without a
 * key, and a technologies list is some 7,500 objects: without this, aliases of it in one document
 * cost seconds of the event loop and tens of MB each, all before the per-address limit (counted
 * per field as it ran) refused anything.
 *
 * - An operation selecting public root fields is counted against PUBLIC_RATE_LIMIT_PER_MINUTE
 *   once, before anything runs (the fields' guard then counts nothing more).
 * - A public root field may be answered once per operation (aliases of it are refused).
 * - An operation made only of public fields is answered from the answer kept for the same
 *   document and variables while the catalogue's entity tag holds, as REST's catalogue is; an
 *   answer in which a field below them read the index (`technology { sites }`, `notKept`) is not kept.
 */
export function publicOperationsPlugin(
  services: Services,
  publicFields: ReadonlySet<string>,
): ApolloServerPlugin<GraphQLContext> {
  const answers = new Map<string, { etag: string; body: unknown }>();
  return {
    async requestDidStart() {
      let cacheKey: string | null = null;
      let etag = '';
      return {
        async didResolveOperation({ operation, document, contextValue, request }) {
          if (!operation || operation.operation === 'subscription') return;
          const fields = rootFieldsOf(operation, document);
          const chosen = fields.filter((field) => publicFields.has(field.name.value));
          if (chosen.length === 0) return;
          refuseReadsBelowLists(chosen, document);
          // Selections of one response key are merged into one execution; an alias is another.
          const keysOf = new Map<string, Set<string>>();
          for (const field of chosen) {
            const name = field.name.value;
            const keys = keysOf.get(name) ?? new Set<string>();
            keysOf.set(name, keys.add(field.alias?.value ?? name));
            if (keys.size > 1)
              throw new GraphQLError(
                `${name} may be selected once per operation (aliases of a public list are refused)`,
                { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
              );
          }
          try {
            await publicRateLimiterFor(services).consume(contextValue.clientIp);
          } catch (error) {
            if (!(error instanceof RateLimitError)) throw error;
            throw new GraphQLError(error.message, {
              originalError: error,
              extensions: {
                http: { status: 429, headers: new Map([['retry-after', String(error.retryAfterSeconds)]]) },
              },
            });
          }
          contextValue.publicCounted = true;
          if (chosen.length !== fields.length || chosen.some((f) => NOT_KEPT.has(f.name.value))) return;
          etag = await services.catalogue.etag();
          cacheKey = createHash('sha256')
            .update(JSON.stringify([request.query, request.operationName ?? null, request.variables ?? {}]))
            .digest('base64url');
        },
        async responseForOperation() {
          const kept = cacheKey === null ? undefined : answers.get(cacheKey);
          if (!kept || kept.etag !== etag) return null;
          return { http: { status: undefined, headers: new Map() }, body: kept.body } as never;
        },
        async willSendResponse({ response, contextValue }: GraphQLRequestContext<GraphQLContext>) {
          const body = response.body;
          // A field below the catalogue read the index for a key (or a trend): not for everyone.
          if (cacheKey === null || body?.kind !== 'single' || contextValue.notKept) return;
          if (body.singleResult.errors?.length || answers.get(cacheKey)?.etag === etag) return;
          if (answers.size >= MAX_CACHED) answers.delete(answers.keys().next().value!);
          answers.set(cacheKey, { etag, body });
        },
      };
    },
  };
}

/** The fields an operation selects on the root type, through its fragments. */
function rootFieldsOf(operation: OperationDefinitionNode, document: DocumentNode): FieldNode[] {
  return fieldsOf(operation.selectionSet, document);
}

/** The fields a selection set selects, through its fragments. */
function fieldsOf(selectionSet: SelectionSetNode, document: DocumentNode): FieldNode[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const fields: FieldNode[] = [];
  const visited = new Set<string>();
  const walk = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith('__')) fields.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(selectionSet);
  return fields;
}

/**
 * The graph's index reads below the whole catalogue's lists (`technologies { sites }` would be a
 * read per technology, thousands): refused before anything runs, naming the field. Ask
 * `technology(slug)` or `category(slug)` for them.
 */
const READS_BELOW_LISTS: Readonly<Record<string, ReadonlySet<string>>> = {
  technologies: new Set(['sites', 'versions', 'changes', 'trend']),
  categories: new Set(['sites', 'changes', 'trend', 'technologies']),
};

function refuseReadsBelowLists(fields: readonly FieldNode[], document: DocumentNode): void {
  for (const field of fields) {
    const refused = READS_BELOW_LISTS[field.name.value];
    if (!refused || !field.selectionSet) continue;
    const read = fieldsOf(field.selectionSet, document).find((f) => refused.has(f.name.value));
    if (read)
      throw new GraphQLError(
        `${read.name.value}: not below the ${field.name.value} list (one read per item); ask technology(slug) or category(slug)`,
        { extensions: { code: 'BAD_REQUEST', parameter: read.name.value, http: { status: 400 } } },
      );
  }
}
