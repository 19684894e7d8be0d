import type { z } from 'zod';

/** The subset of JSON Schema (2020-12, as OpenAPI 3.1 uses it) that the OpenAPI document holds. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  entries?: Record<string, string>;
  values?: unknown[];
  options?: z.ZodType[];
  valueType?: z.ZodType;
  checks?: { _zod: { def: Record<string, unknown> } }[];
};

/** What the meta of a published shape may add to its JSON Schema. */
interface ShapeMeta {
  description?: string;
  /** A union published as oneOf (exactly one form fits) instead of anyOf. */
  exclusive?: boolean;
  /** A reference to a schema of the document's components (`#/components/schemas/Error`). */
  ref?: string;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The JSON Schema of a published shape declared with zod (the services' presenters declare every
 * REST answer so), for the OpenAPI document. Written here rather than taken from z.toJSONSchema so
 * that the document says exactly what the service promises: an object is closed only where the
 * shape says so (z.strictObject), integers carry no implied safe-integer bounds, nullable values
 * are `[type, "null"]`, and a union may be published as oneOf.
 */
export function jsonSchemaOf(shape: z.ZodType): JsonSchema {
  const meta = (shape.meta() ?? {}) as ShapeMeta;
  if (meta.ref) return { $ref: meta.ref };
  const schema = convert(shape);
  const description = meta.description ?? shape.description;
  return description && !schema.description ? { ...schema, description } : schema;
}

function convert(shape: z.ZodType): JsonSchema {
  const def = shape.def as unknown as Def;
  const checks = (def.checks ?? []).map((check) => check._zod.def);
  switch (def.type) {
    case 'string': {
      const out: JsonSchema = { type: 'string' };
      for (const check of checks) {
        if (check.check === 'max_length') out.maxLength = check.maximum as number;
        if (check.check === 'string_format' && check.format === 'regex')
          out.pattern = (check.pattern as RegExp).source;
      }
      return out;
    }
    case 'number': {
      const integer = checks.some((check) => check.format === 'safeint' || check.format === 'int32');
      const out: JsonSchema = { type: integer ? 'integer' : 'number' };
      for (const check of checks) {
        const value = check.value as number;
        if (check.check === 'greater_than' && Math.abs(value) !== SAFE) out.minimum = value;
        if (check.check === 'less_than' && Math.abs(value) !== SAFE) out.maximum = value;
        if (check.check === 'multiple_of') out.multipleOf = value;
      }
      return out;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum':
      return { type: 'string', enum: Object.values(def.entries!) };
    case 'literal': {
      const value = def.values![0];
      return typeof value === 'string' ? { type: 'string', const: value } : { const: value };
    }
    case 'array': {
      const out: JsonSchema = { type: 'array', items: jsonSchemaOf(def.element!) };
      for (const check of checks) {
        if (check.check === 'min_length' && (check.minimum as number) > 0)
          out.minItems = check.minimum as number;
        if (check.check === 'max_length') out.maxItems = check.maximum as number;
      }
      return out;
    }
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [key, value] of Object.entries(def.shape!)) {
        properties[key] = jsonSchemaOf(value);
        if (!isOptional(value)) required.push(key);
      }
      const catchall = def.catchall ? (def.catchall.def as unknown as Def).type : undefined;
      return {
        type: 'object',
        ...(required.length > 0 ? { required } : {}),
        ...(Object.keys(properties).length > 0 ? { properties } : {}),
        ...(catchall === 'never' ? { additionalProperties: false } : {}),
        ...(catchall === 'unknown' ? { additionalProperties: true } : {}),
      };
    }
    case 'record':
      return { type: 'object', additionalProperties: jsonSchemaOf(def.valueType!) };
    case 'optional':
      return jsonSchemaOf(def.innerType!);
    case 'nullable': {
      const inner = jsonSchemaOf(def.innerType!);
      const keys = Object.keys(inner);
      if (typeof inner.type === 'string' && keys.every((key) => key === 'type' || key === 'description'))
        return { ...inner, type: [inner.type, 'null'] };
      return { anyOf: [inner, { type: 'null' }] };
    }
    case 'union': {
      const options = def.options!.map(jsonSchemaOf);
      return ((shape.meta() ?? {}) as ShapeMeta).exclusive ? { oneOf: options } : { anyOf: options };
    }
    case 'pipe':
      // A transform publishes what it reads; a pipe into another schema, what it gives.
      return jsonSchemaOf((def.out!.def as unknown as Def).type === 'transform' ? def.in! : def.out!);
    case 'unknown':
      return {};
    default:
      throw new Error(`No JSON Schema for a ${def.type} in a published shape`);
  }
}

function isOptional(shape: z.ZodType): boolean {
  return (shape.def as unknown as Def).type === 'optional';
}
