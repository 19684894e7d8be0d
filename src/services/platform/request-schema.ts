import { z } from 'zod';
import { FieldError, ValidationError } from '../../errors';
import { parseHttpUrl } from './url-input';

/*
 * One zod schema per operation holds each input's bounds, default, description and messages: the
 * REST facade reads its parameters from it (and publishes them in the OpenAPI document), GraphQL's
 * argument types are made from it, and the resolver both transports call parses the arguments with
 * it, once. Messages are templates in which `{name}` stands for the field as the caller's transport
 * names it (see FieldError).
 */

/** What a field says about itself beyond its zod type: read by the facade, OpenAPI and GraphQL. */
export interface FieldMeta {
  description: string;
  /** Its name on REST where that differs from its key (the spec's snake_case `callback_url`). */
  rest?: string;
  /** Another name REST accepts for it (the Dataset body's `callbackUrl` beside `callback_url`). */
  restAlias?: string;
  /** The name of the GraphQL type made for it (an enum or an input object). */
  graphqlType?: string;
  /** A URL: published with format uri. */
  uri?: boolean;
}

/** A field's meta, as the builders below set it. */
export function fieldMeta(schema: z.ZodType): FieldMeta {
  return (schema.meta() ?? { description: '' }) as unknown as FieldMeta;
}

interface Common {
  description: string;
  required?: boolean;
  rest?: string;
  restAlias?: string;
}

/** A field's schema as its options make it: with a default, required, or optional. */
type Finished<T extends z.ZodType, O> = O extends { default: unknown }
  ? z.ZodDefault<T>
  : O extends { required: true }
    ? T
    : z.ZodOptional<T>;

/** Optional unless required; the meta goes on the outside, where readers find it. */
function finish<
  T extends z.ZodType,
  O extends Common & { default?: unknown; graphqlType?: string; uri?: boolean },
>(schema: T, opts: O): Finished<T, O> {
  const meta: FieldMeta = {
    description: opts.description,
    ...(opts.rest ? { rest: opts.rest } : {}),
    ...(opts.restAlias ? { restAlias: opts.restAlias } : {}),
    ...(opts.graphqlType ? { graphqlType: opts.graphqlType } : {}),
    ...(opts.uri ? { uri: true } : {}),
  };
  if (opts.default !== undefined)
    return schema.default(opts.default as never).meta({ ...meta }) as Finished<T, O>;
  if (opts.required) return schema.meta({ ...meta }) as Finished<T, O>;
  return schema.optional().meta({ ...meta }) as Finished<T, O>;
}

const typeError = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? '{name} is required' : `{name} must be ${what}`;

/** A string, trimmed, not empty, at most maxLength characters, optionally matching a pattern. */
function text<O extends Common & { maxLength: number; pattern?: RegExp; patternText?: string }>(opts: O) {
  let schema = z
    .string({ error: typeError('a string') })
    .trim()
    .min(1, { error: '{name} must not be empty' })
    .max(opts.maxLength, { error: `{name} must be at most ${opts.maxLength} characters` });
  if (opts.pattern)
    schema = schema.regex(opts.pattern, {
      error: `{name} ${opts.patternText ?? `must match ${opts.pattern.source}`}`,
    });
  return finish(schema, opts);
}

/** An http(s) URL as users type it (a bare host name gets http://), normalised by parseHttpUrl. */
function url<O extends Common>(opts: O) {
  const schema = z.string({ error: typeError('a string') }).transform((value, ctx) => {
    try {
      return parseHttpUrl('{name}', value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });
  return finish(schema, { ...opts, uri: true as const });
}

function flag<O extends Common & { default?: boolean }>(opts: O) {
  return finish(z.boolean({ error: typeError('true or false') }), opts);
}

function integer<O extends Common & { min: number; max: number; multipleOf?: number; default?: number }>(
  opts: O,
) {
  const range = `{name} must be between ${opts.min} and ${opts.max}`;
  let schema = z
    .number({ error: typeError('a whole number') })
    .int({ error: '{name} must be a whole number' })
    .min(opts.min, { error: range })
    .max(opts.max, { error: range });
  if (opts.multipleOf)
    schema = schema.multipleOf(opts.multipleOf, { error: `{name} must be a multiple of ${opts.multipleOf}` });
  return finish(schema, opts);
}

/**
 * One of a few words, case-insensitive. With `graphqlType` it is a GraphQL enum of that name (its
 * values upper-cased); without, a GraphQL String checked here.
 */
function choice<
  const T extends readonly [string, ...string[]],
  O extends Common & { default?: T[number]; graphqlType?: string },
>(values: T, opts: O) {
  const message = `{name} must be one of ${values.join(', ')}`;
  const oneOf = z.enum(values, { error: message });
  if (opts.graphqlType) return finish(oneOf, opts);
  return finish(
    z
      .string({ error: typeError('a string') })
      .trim()
      .toLowerCase()
      .pipe(oneOf),
    opts,
  );
}

/**
 * A list (REST's query form is comma-separated values): between min and max items, each item of
 * the item schema. The item schema's messages name the item (`{name}[2] must be …`).
 */
function list<I extends z.ZodType, O extends Common & { min?: number; max: number }>(item: I, opts: O) {
  const min = opts.min ?? 0;
  const count =
    min > 0 ? `{name} must hold ${min} to ${opts.max} values` : `{name} must hold at most ${opts.max} values`;
  return finish(
    z
      .array(item, { error: typeError('a list') })
      .min(min, { error: count })
      .max(opts.max, { error: count }),
    opts,
  );
}

/** A list whose items are kept once each, in the order first given (after the items' own normalising). */
function uniqueList<I extends z.ZodType, O extends Common & { max: number }>(item: I, opts: O) {
  const count = `{name} must hold at most ${opts.max} values`;
  return finish(
    z
      .array(item, { error: typeError('a list') })
      .max(opts.max, { error: count })
      .transform((items) => [...new Set(items)]),
    opts,
  );
}

/** An item of a list: a string of at most maxLength characters (trimmed; empty ones are refused). */
function item(maxLength: number, extra?: { pattern: RegExp; patternText: string }) {
  let schema = z
    .string({ error: '{name} must be a string' })
    .trim()
    .min(1, { error: '{name} must not be empty' })
    .max(maxLength, { error: `{name} must be at most ${maxLength} characters` });
  if (extra) schema = schema.regex(extra.pattern, { error: `{name} ${extra.patternText}` });
  return schema;
}

/**
 * A string field's value normalised by a parser of the project's own (a domain name, say): the
 * parser's ValidationError becomes this field's issue, its message naming the field as `{name}`.
 */
function parsedBy<T>(parse: (value: string) => T) {
  return (value: string, ctx: z.RefinementCtx): T => {
    try {
      return parse(value);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const { parameter, message } = error;
      ctx.addIssue({
        code: 'custom',
        message: message.startsWith(parameter)
          ? `{name}${message.slice(parameter.length)}`
          : `{name}: ${message}`,
      });
      return z.NEVER;
    }
  };
}

export const field = { text, url, flag, integer, choice, list, uniqueList, item, parsedBy };

/** What a field's schema is inside its optional/default wrappers, and how it may be left out. */
export function unwrapField(schema: z.ZodType): { inner: z.ZodType; optional: boolean; default?: unknown } {
  let inner = schema;
  let optional = false;
  let defaultValue: unknown;
  for (;;) {
    const def = inner.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
    if (def.type === 'optional' || def.type === 'nullable') {
      optional = true;
      inner = def.innerType!;
    } else if (def.type === 'default') {
      optional = true;
      defaultValue = def.defaultValue;
      inner = def.innerType!;
    } else {
      return { inner, optional, ...(defaultValue !== undefined ? { default: defaultValue } : {}) };
    }
  }
}

/**
 * The schema a caller's value must first fit: what a pipe reads (a string a transform normalises, a
 * string lower-cased before it is checked against a choice), or what a preprocessing step gives.
 */
export function inputOf(schema: z.ZodType): z.ZodType {
  let current = unwrapField(schema).inner;
  for (;;) {
    const def = current.def as { type: string; in?: z.ZodType; out?: z.ZodType };
    if (def.type !== 'pipe') return current;
    current = (def.in!.def as { type: string }).type === 'transform' ? def.out! : def.in!;
  }
}

/** An operation's request schema: an object of fields made by `field`. */
export type RequestSchema = z.ZodObject<Record<string, z.ZodType>>;

/**
 * The arguments of an operation, parsed once: absent, null and empty-string values are the same
 * (GraphQL sends null for an argument left out, a query string an empty value; REST treats `x=` as
 * no x), defaults are applied, and the first problem is thrown as a FieldError naming the field.
 */
export function parseRequest<S extends RequestSchema>(schema: S, args: object): z.output<S> {
  const present: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args))
    if (value !== null && value !== undefined && value !== '') present[key] = value;
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  throw fieldErrorOf(result.error.issues[0]);
}

/** A zod issue as a FieldError: the first path element is the field, the rest a suffix of its name. */
export function fieldErrorOf(issue: z.core.$ZodIssue): FieldError {
  const [key, ...rest] = issue.path;
  const suffix = rest.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
  const message = issue.message.includes('{name}') ? issue.message : `{name}: ${issue.message}`;
  return new FieldError(String(key ?? 'body'), message.split('{name}').join(`{name}${suffix}`));
}
