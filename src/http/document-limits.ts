import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Config } from '../platform/config';

/**
 * Bounds of a caller's GraphQL document (GRAPHQL_MAX_*). The token limit stops the parser itself,
 * so a huge document is refused before parsing, validation (whose field-merging check grows with
 * the square of the aliases) or execution can grow with it; the GraphQL Armor rules refuse what
 * fits the token budget but would still be expensive to run.
 */
export interface DocumentLimits {
  /** Passed to graphql-js parse(): it aborts past this many tokens. */
  parseOptions: { maxTokens: number };
  /** Run with graphql-js' own rules on every caller's document (HTTP and WebSocket). */
  validationRules: ValidationRule[];
}

export function documentLimitsOf(config: Config): DocumentLimits {
  // By default the Armor rules throw out of graphql-js validate(), which servers answer with a
  // 500; reported as validation errors they become the usual 400 GRAPHQL_VALIDATION_FAILED.
  const report = {
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
  };
  return {
    parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
    validationRules: [
      // No allow-list: 45,000 aliases of __typename are as expensive as any others.
      maxAliasesRule({ n: config.GRAPHQL_MAX_ALIASES, allowList: [], ...report }),
      maxDepthRule({ n: config.GRAPHQL_MAX_DEPTH, ...report }),
      maxDirectivesRule({ n: config.GRAPHQL_MAX_DIRECTIVES, ...report }),
      costLimitRule({ maxCost: config.GRAPHQL_MAX_COST, ...report }),
    ],
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
