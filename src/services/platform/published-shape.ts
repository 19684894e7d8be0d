import type { z } from 'zod';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
};

/**
 * A value projected onto a published shape (a zod schema of a presenter): exactly the shape's
 * fields, in the shape's order, nested objects and lists alike; an optional field without a value
 * is left out, never sent as null. What a GraphQL selection did for the REST answers read from
 * GraphQL: a result that carries more (GraphQL-only fields, internal ones) publishes only these.
 */
export function project<S extends z.ZodType>(shape: S, value: unknown): z.output<S> {
  return projectValue(shape, value) as z.output<S>;
}

function projectValue(shape: z.ZodType, value: unknown): unknown {
  const def = shape.def as unknown as Def;
  switch (def.type) {
    case 'object': {
      const source = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape!)) {
        const fieldValue = source[key];
        // Left out: an optional field without a value (null too, unless the shape says null is a value).
        if (fieldValue === undefined && isOptional(field)) continue;
        if (fieldValue === null && isOptional(field) && !nullableInside(field)) continue;
        out[key] = projectValue(field, fieldValue);
      }
      return out;
    }
    case 'array':
      return (value as unknown[]).map((item) => projectValue(def.element!, item));
    case 'record':
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [
          key,
          projectValue(def.valueType!, item),
        ]),
      );
    case 'optional':
    case 'default':
      return value === undefined || value === null ? value : projectValue(def.innerType!, value);
    case 'nullable':
      return value === null || value === undefined ? null : projectValue(def.innerType!, value);
    default:
      return value;
  }
}

function isOptional(shape: z.ZodType): boolean {
  return (shape.def as unknown as Def).type === 'optional';
}

function nullableInside(shape: z.ZodType): boolean {
  const def = shape.def as unknown as Def;
  return def.type === 'nullable' || (def.type === 'optional' && nullableInside(def.innerType!));
}

/** Drops nulls (absent values) and empty lists, recursively; undefined when nothing is left: no field of a published answer is null or []. */
export function withoutNulls(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutNulls).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([key]) => key !== '__typename')
      .map(([key, v]) => [key, withoutNulls(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}
