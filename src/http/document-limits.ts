import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../platform/config';

/**
 * Bounds of a caller's GraphQL document (GRAPHQL_MAX_*). The token limit stops the parser itself,
 * so a huge document is refused before parsing, validation or execution can grow with it; the
 * work bounds (operations, fields once fragments are expanded, field merges) refuse, before any
 * validation rule runs, what fits the token budget but would make validation itself expensive;
 * the GraphQL Armor rules refuse what would still be expensive to run.
 */
export interface DocumentLimits {
  /** Passed to graphql-js parse(): it aborts past this many tokens. */
  parseOptions: { maxTokens: number };
  /** Run with graphql-js' own rules on every caller's document (HTTP and WebSocket). */
  validationRules: ValidationRule[];
}

/** Which work bound a document was refused by (a metric label). */
export type WorkLimit = 'operations' | 'fields' | 'merges';

export interface WorkBounds {
  /** Operations in one document. */
  operations: number;
  /** Field selections walked with every fragment spread expanded, over the whole document. */
  fields: number;
  /** Pairs of selections of one field at one place of the result (see workOf). */
  merges: number;
}

/** Why a document was refused before validation. */
export interface Refusal {
  limit: WorkLimit;
  message: string;
}

export function workBoundsOf(config: Config): WorkBounds {
  return {
    operations: config.GRAPHQL_MAX_OPERATIONS,
    // Without fragments a document holds fewer fields than tokens: only expansion can pass this.
    fields: 2 * config.GRAPHQL_MAX_TOKENS,
    merges: config.GRAPHQL_MAX_FIELD_MERGES,
  };
}

export function documentLimitsOf(
  config: Config,
  onRefused: (limit: WorkLimit) => void = () => undefined,
): DocumentLimits {
  // By default the Armor rules throw out of graphql-js validate(), which servers answer with a
  // 500; reported as validation errors they become the usual 400 GRAPHQL_VALIDATION_FAILED.
  const report = {
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
  };
  return {
    parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
    validationRules: [
      boundedWorkRule(workBoundsOf(config), onRefused),
      // No allow-list: 45,000 aliases of __typename are as expensive as any others.
      maxAliasesRule({ n: config.GRAPHQL_MAX_ALIASES, allowList: [], ...report }),
      maxDepthRule({ n: config.GRAPHQL_MAX_DEPTH, ...report }),
      maxDirectivesRule({ n: config.GRAPHQL_MAX_DIRECTIVES, ...report }),
      costLimitRule({ maxCost: config.GRAPHQL_MAX_COST, ...report }),
    ],
  };
}

/** What validation goes on with once a document is refused: nothing. */
const NOTHING: DocumentNode = Object.freeze({ kind: Kind.DOCUMENT, definitions: [] });

/**
 * Refuses a document over a work bound when validation enters it, before any rule has done more
 * than count its definitions: graphql-js runs every rule in one walk of the document, and the
 * first node of that walk is the Document. The refusal is reported as a validation error, and the
 * walk is handed an empty document in place of this one (a visitor's enter may replace the node
 * it is given): the rules find nothing to do. Reported and left in place, the document would
 * still be walked by every rule, OverlappingFieldsCanBeMerged among them, which a small document
 * of repeated selections keeps busy for about a second (docs/operations.md).
 */
function boundedWorkRule(bounds: WorkBounds, onRefused: (limit: WorkLimit) => void): ValidationRule {
  return (context) => ({
    Document(document) {
      const refused = refusalOf(document, bounds);
      if (!refused) return undefined;
      onRefused(refused.limit);
      context.reportError(new GraphQLError(refused.message));
      return NOTHING;
    },
  });
}

/** One place of the result (a response path): how many selections land there, and what lies below. */
interface Place {
  name: string;
  above: Place | null;
  count: number;
  below: Map<string, Place> | null;
}

/** "a.b.c": the response names from the top down to a place. */
function pathOf(place: Place): string {
  const names: string[] = [];
  for (let at: Place | null = place; at?.above; at = at.above) names.push(at.name);
  return names.reverse().join('.');
}

class FieldBoundExceeded extends Error {}

/**
 * What validation would have to do with a document, counted in one walk:
 * - operations;
 * - field selections, with every fragment spread expanded where it is spread (each operation and
 *   each fragment definition walked from its own top, as validation visits them), stopping as soon
 *   as `bounds.fields` is passed (so a fragment that spreads another twice, and so on, costs no
 *   more than that);
 * - merges: OverlappingFieldsCanBeMerged compares every two selections that land on the same
 *   place of the result (same response names from the top, fragments and inline fragments
 *   flattened), each pair once; a place selected n times costs n(n-1)/2 comparisons, each with
 *   the work of comparing two fields. The sum over places bounds the rule's work.
 * Null when the document is within every bound.
 */
export function refusalOf(document: DocumentNode, bounds: WorkBounds): Refusal | null {
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) operations++;
  }
  if (operations > bounds.operations) {
    return {
      limit: 'operations',
      message:
        `The document holds ${operations} operations, more than ${bounds.operations}: send the one to run ` +
        '(with operationName when there are several)',
    };
  }
  let fields = 0;
  const spreading = new Set<string>();
  const walk = (selectionSet: SelectionSetNode, place: Place): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (++fields > bounds.fields) throw new FieldBoundExceeded();
        const name = selection.alias?.value ?? selection.name.value;
        place.below ??= new Map();
        let below = place.below.get(name);
        if (!below) place.below.set(name, (below = { name, above: place, count: 0, below: null }));
        below.count++;
        if (selection.selectionSet) walk(selection.selectionSet, below);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, place);
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        // An unknown fragment or a cycle is reported by validation itself (KnownFragmentNames,
        // NoFragmentCycles); here it only must not be followed.
        if (!fragment || spreading.has(name)) continue;
        spreading.add(name);
        walk(fragment.selectionSet, place);
        spreading.delete(name);
      }
    }
  };
  const tops: Place[] = [];
  try {
    for (const definition of document.definitions) {
      if (definition.kind !== Kind.OPERATION_DEFINITION && definition.kind !== Kind.FRAGMENT_DEFINITION)
        continue;
      const top: Place = { name: '', above: null, count: 1, below: null };
      tops.push(top);
      if (definition.kind === Kind.FRAGMENT_DEFINITION) spreading.add(definition.name.value);
      walk(definition.selectionSet, top);
      spreading.clear();
    }
  } catch (error) {
    if (!(error instanceof FieldBoundExceeded)) throw error;
    return {
      limit: 'fields',
      message: `The document selects more than ${bounds.fields} fields once its fragments are expanded`,
    };
  }
  let merges = 0;
  let worst: Place | null = null;
  for (const stack = [...tops]; stack.length > 0;) {
    for (const below of stack.pop()!.below?.values() ?? []) {
      merges += (below.count * (below.count - 1)) / 2;
      if (below.count > (worst?.count ?? 0)) worst = below;
      stack.push(below);
    }
  }
  if (merges <= bounds.merges || !worst) return null;
  const most: Place = worst;
  return {
    limit: 'merges',
    message:
      `The document selects the same fields too many times ("${pathOf(most)}" ${most.count} times at one ` +
      `place of the result): merging them would take ${merges} comparisons, at most ${bounds.merges} ` +
      'are allowed. Select each field once at each place.',
  };
}

/**
 * Parse and validate within the limits, for transports that do not go through Apollo (graphql-ws):
 * the document, or the errors to answer with.
 */
export function parseWithinLimits(
  schema: GraphQLSchema,
  query: string,
  limits: DocumentLimits,
): { document: DocumentNode } | { errors: readonly GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(query, limits.parseOptions);
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  const errors = validate(schema, document, [...specifiedRules, ...limits.validationRules]);
  return errors.length > 0 ? { errors } : { document };
}
