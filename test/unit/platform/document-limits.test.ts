import { GraphQLSchema, parse, specifiedRules, validate, ValidationRule } from 'graphql';
import { loadConfig } from '../../../src/platform/config';
import { EventBus } from '../../../src/platform/event-bus';
import { buildAppSchema } from '../../../src/resolvers/build-schema';
import { documentLimitsOf, refusalOf, workBoundsOf } from '../../../src/http/document-limits';

/**
 * The work bounds are checked when validation enters the Document, before any rule walks it. The
 * proxy for "no validation work" is a rule that counts the selection sets and fields it is shown,
 * run first, as Apollo runs graphql-js' own rules before ours.
 */
describe('GraphQL document work bounds', () => {
  let schema: GraphQLSchema;
  const config = loadConfig({ NODE_ENV: 'test' });
  const limits = documentLimitsOf(config);
  const bounds = workBoundsOf(config);

  beforeAll(async () => {
    schema = await buildAppSchema(new EventBus());
  });

  /** Validates as Apollo does (graphql-js' rules, then ours): the errors and what the rules were shown. */
  function validateCounting(query: string) {
    const seen = { selectionSets: 0, fields: 0 };
    const counting: ValidationRule = () => ({
      SelectionSet: () => void seen.selectionSets++,
      Field: () => void seen.fields++,
    });
    const errors = validate(schema, parse(query, limits.parseOptions), [
      counting,
      ...specifiedRules,
      ...limits.validationRules,
    ]);
    return { errors: errors.map((error) => error.message), seen };
  }

  it('refuses the 1,249-fold repeated selection with one error, and no rule sees a selection of it', () => {
    const { errors, seen } = validateCounting(`{ ${'categories { id } '.repeat(1249)}}`);
    expect(errors).toEqual([
      'The document selects the same fields too many times ("categories" 1249 times at one place of the ' +
        'result): merging them would take 1558752 comparisons, at most 1000 are allowed. Select each ' +
        'field once at each place.',
    ]);
    expect(seen).toEqual({ selectionSets: 0, fields: 0 });
  });

  it('lets a document within the bounds be validated as before', () => {
    const { errors, seen } = validateCounting('{ categories { id } categories { name } }');
    expect(errors).toEqual([]);
    expect(seen).toEqual({ selectionSets: 3, fields: 4 });
  });

  it('counts merges per place of the result: n selections of one place make n(n-1)/2', () => {
    const at = (query: string) => refusalOf(parse(query), { ...bounds, merges: 0 })?.message ?? 'within';
    expect(at('{ categories { id } }')).toBe('within');
    // 3 categories (3 merges) and their 3 ids (3 more); `name` once is nothing to merge.
    expect(at('{ categories { id } categories { id } categories { id name } }')).toMatch(
      /"categories" 3 times .* 6 comparisons/,
    );
    // Aliases are other places: nothing to merge.
    expect(at('{ a: categories { id } b: categories { id } }')).toBe('within');
    // Fragments and inline fragments land where they are spread.
    expect(
      at(
        'query { categories { ...F ... on CatalogueCategory { id } } } fragment F on CatalogueCategory { id }',
      ),
    ).toMatch(/"categories.id" 2 times .* 1 comparisons/);
  });

  it('stops expanding fragments past the field bound, and refuses more operations than allowed', () => {
    const bomb = Array.from(
      { length: 40 },
      (_, i) => `fragment B${i} on Query { ...B${i + 1} ...B${i + 1} }`,
    );
    const exploded = validateCounting(`{ ...B0 } ${bomb.join(' ')} fragment B40 on Query { __typename }`);
    expect(exploded.errors).toEqual([
      'The document selects more than 10000 fields once its fragments are expanded',
    ]);
    expect(exploded.seen).toEqual({ selectionSets: 0, fields: 0 });
    const many = validateCounting(
      Array.from({ length: 21 }, (_, i) => `query Q${i} { __typename }`).join(' '),
    );
    expect(many.errors).toEqual([
      'The document holds 21 operations, more than 20: send the one to run (with operationName when there are several)',
    ]);
    expect(many.seen).toEqual({ selectionSets: 0, fields: 0 });
  });
});
