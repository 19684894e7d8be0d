import { ArgsType, Field, Float, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { z } from 'zod';
import { fieldMeta, inputOf, unwrapField, type RequestSchema } from '../services/platform/request-schema';

/*
 * GraphQL argument and input types made from an operation's request schema (see
 * services/platform/request-schema.ts), so each input is declared once: its GraphQL type, whether
 * it may be left out, its default and its description all come from the schema's field. The
 * resolver parses what GraphQL passes with the same schema.
 */

type Constructor = new () => object;
type GraphQLTypeRef = unknown;

const enums = new Map<string, object>();
const inputs = new Map<string, Constructor>();

/** A value that spelt in upper case is a GraphQL name (letters, digits, `_`; not a digit first). */
const NAMEABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The GraphQL enum of a choice field: upper-case names for the schema's values (`always` →
 * ALWAYS). Choices that are not names (`=`, `>=`, `<=`) stay a String, which the request schema
 * then checks with its own message: a made-up name would be a spelling no client knows.
 */
function enumOf(values: readonly string[], name: string, description: string): object {
  if (!values.every((value) => NAMEABLE.test(value))) return String;
  let made = enums.get(name);
  if (!made) {
    made = Object.fromEntries(values.map((value) => [value.toUpperCase(), value]));
    registerEnumType(made, { name, description });
    enums.set(name, made);
  }
  return made;
}

/** What differs between an input and an output type: how a choice and a nested object become types. */
interface TypeMakers {
  /** "input" or "output", for the error naming a field no GraphQL type fits. */
  side: string;
  choice(values: readonly string[], typeName: string): GraphQLTypeRef;
  object(schema: RequestSchema, name: string, description?: string): Constructor;
}

/** The GraphQL type of a field's schema; `typeName` names the enum or object type it may need. */
function typeOfField(schema: z.ZodType, typeName: string, makers: TypeMakers): GraphQLTypeRef {
  const inner = inputOf(schema);
  const def = inner.def as { type: string; element?: z.ZodType; entries?: Record<string, string> };
  switch (def.type) {
    case 'string':
      return String;
    case 'boolean':
      return Boolean;
    case 'number':
      return (inner as z.ZodNumber).isInt ? Int : Float;
    case 'enum':
      return makers.choice(Object.values(def.entries!), typeName);
    case 'array':
      return [typeOfField(def.element!, typeName, makers)];
    case 'object': {
      const own = (inner.meta() ?? {}) as { graphqlType?: string; typeDescription?: string };
      return makers.object(inner as RequestSchema, own.graphqlType ?? typeName, own.typeDescription);
    }
    default:
      throw new Error(`No GraphQL ${makers.side} type for the ${def.type} field of ${typeName}`);
  }
}

/** An argument's or input field's type: choices are enums where their values are names, objects input types. */
const inputMakers = (description: string): TypeMakers => ({
  side: 'input',
  choice: (values, typeName) => enumOf(values, typeName, description),
  object: (schema, name, typeDescription) => inputTypeOf(schema, name, typeDescription),
});

function declareFields(target: Constructor, schema: RequestSchema): void {
  for (const [key, fieldSchema] of Object.entries(schema.shape)) {
    const meta = fieldMeta(fieldSchema);
    const { optional, default: defaultValue } = unwrapField(fieldSchema);
    const typeName = meta.graphqlType ?? `${target.name}${key[0].toUpperCase()}${key.slice(1)}`;
    const type = typeOfField(fieldSchema, typeName, inputMakers(meta.description));
    Field(() => type as never, {
      nullable: optional,
      ...(defaultValue !== undefined ? { defaultValue } : {}),
      ...(meta.description ? { description: meta.description } : {}),
    })(target.prototype, key);
  }
}

/** An @ArgsType class whose fields are the schema's (its name appears nowhere in the schema). */
export function argsTypeOf(schema: RequestSchema, name: string): Constructor {
  const Args = { [name]: class {} }[name];
  declareFields(Args, schema);
  ArgsType()(Args);
  return Args;
}

/** An @InputType of the given name whose fields are the schema's (made once per name). */
export function inputTypeOf(schema: RequestSchema, name: string, description?: string): Constructor {
  let made = inputs.get(name);
  if (!made) {
    made = { [name]: class {} }[name];
    declareFields(made, schema);
    InputType(name, description ? { description } : {})(made);
    inputs.set(name, made);
  }
  return made;
}

const objects = new Map<string, Constructor>();

/** A published shape's field type: choices stay strings, nested objects are named object types. */
const OUTPUT_MAKERS: TypeMakers = {
  side: 'output',
  choice: () => String,
  object: (schema, name, description) => objectTypeOf(schema, name, description),
};

/**
 * A GraphQL object type made from a published shape, where GraphQL publishes the same fields as
 * REST (the email verification): one declaration for both, descriptions included. A nested
 * object's type is named by its `graphqlType` meta.
 */
export function objectTypeOf(shape: RequestSchema, name: string, description?: string): Constructor {
  let made = objects.get(name);
  if (!made) {
    made = { [name]: class {} }[name];
    for (const [key, fieldSchema] of Object.entries(shape.shape)) {
      const meta = fieldMeta(fieldSchema);
      const fieldDescription =
        meta.description || fieldSchema.description || unwrapField(fieldSchema).inner.description;
      const typeName = meta.graphqlType ?? `${name}${key[0].toUpperCase()}${key.slice(1)}`;
      const type = typeOfField(fieldSchema, typeName, OUTPUT_MAKERS);
      Field(() => type as never, {
        nullable: unwrapField(fieldSchema).optional,
        ...(fieldDescription ? { description: fieldDescription } : {}),
      })(made.prototype, key);
    }
    ObjectType(name, description ? { description } : {})(made);
    objects.set(name, made);
  }
  return made;
}
