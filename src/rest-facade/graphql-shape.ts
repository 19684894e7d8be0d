import {
  getNamedType,
  GraphQLNamedType,
  GraphQLOutputType,
  GraphQLSchema,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import type { JsonSchema } from './json-schema';

/**
 * REST answers derived from the GraphQL types they are read from, so a shape is written once (the
 * type-graphql class): the selection a route asks for, and the JSON Schema the OpenAPI document
 * publishes for it. A nullable GraphQL field is an optional property: the presenters leave absent
 * values out instead of sending null.
 */
export function selectionOf(schema: GraphQLSchema, typeName: string, omit: readonly string[] = []): string {
  return selectionOfType(namedObject(schema, typeName), new Set(omit));
}

export function jsonSchemaOf(
  schema: GraphQLSchema,
  typeName: string,
  options: { omit?: readonly string[]; rename?: Record<string, string> } = {},
): JsonSchema {
  return objectSchema(namedObject(schema, typeName), new Set(options.omit ?? []), options.rename ?? {});
}

function namedObject(schema: GraphQLSchema, typeName: string) {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`GraphQL type ${typeName} is not an object type`);
  return type;
}

function selectionOfType(type: GraphQLNamedType, omit: Set<string>): string {
  if (!isObjectType(type)) return '';
  const fields: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (omit.has(field.name) || field.args.some((a) => isNonNullType(a.type))) continue;
    const inner = getNamedType(field.type);
    fields.push(isObjectType(inner) ? `${field.name} { ${selectionOfType(inner, omit)} }` : field.name);
  }
  return fields.join(' ');
}

function objectSchema(
  type: ReturnType<typeof namedObject>,
  omit: Set<string>,
  rename: Record<string, string>,
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (omit.has(field.name)) continue;
    const name = rename[field.name] ?? field.name;
    properties[name] = {
      ...outputSchema(field.type, omit, rename),
      ...(field.description ? { description: field.description } : {}),
    };
    if (isNonNullType(field.type)) required.push(name);
  }
  return { type: 'object', ...(required.length ? { required } : {}), properties };
}

function outputSchema(
  type: GraphQLOutputType,
  omit: Set<string>,
  rename: Record<string, string>,
): JsonSchema {
  const bare = isNonNullType(type) ? type.ofType : type;
  if (isListType(bare)) return { type: 'array', items: outputSchema(bare.ofType, omit, rename) };
  if (isObjectType(bare)) return objectSchema(bare, omit, rename);
  if (isEnumType(bare)) return { type: 'string', enum: bare.getValues().map((v) => v.name) };
  if (isScalarType(bare)) {
    switch (bare.name) {
      case 'Int':
        return { type: 'integer' };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      default:
        return { type: 'string' };
    }
  }
  return {};
}
