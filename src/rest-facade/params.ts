import type { z } from 'zod';
import { FieldError, ValidationError } from '../errors';
import { fieldMeta, inputOf, unwrapField, type RequestSchema } from '../services/platform/request-schema';
import type { AnyRoute } from './route';

/** One REST parameter of a route: a field of its request schema, where it comes from and its REST name. */
export interface RouteParam {
  /** The field's key in the request schema (the resolver's argument name). */
  key: string;
  /** Its name on REST. */
  name: string;
  /** Another name REST accepts for it. */
  alias?: string;
  in: 'query' | 'path' | 'body';
  required: boolean;
  /** The field's schema (with its optional/default wrappers). */
  schema: z.ZodType;
}

/** The REST parameters of a route, from its request schema. */
export function paramsOf(route: AnyRoute): RouteParam[] {
  if (!route.request) return [];
  return Object.entries((route.request as RequestSchema).shape).map(([key, schema]) => {
    const meta = fieldMeta(schema);
    return {
      key,
      name: meta.rest ?? key,
      ...(meta.restAlias ? { alias: meta.restAlias } : {}),
      in: route.pathParams?.includes(key) ? 'path' : route.method === 'POST' ? 'body' : 'query',
      required: !unwrapField(schema).optional,
      schema,
    };
  });
}

/**
 * A request's parameters as the resolver method takes them: query and path strings turned into the
 * field's type (true/false/1/0, whole numbers, comma-separated lists), the JSON body's values as
 * they are, keyed by the fields' keys. The bounds, defaults and formats are the request schema's,
 * checked by the resolver; what fails here is the text form itself. Unknown query parameters are
 * refused by name, so that typos surface. Errors name the parameter as REST does.
 */
export function readParams(
  route: AnyRoute,
  params: readonly RouteParam[],
  query: Record<string, unknown>,
  pathParams: Record<string, string>,
  body: unknown,
): Record<string, unknown> {
  for (const name of Object.keys(query)) {
    if (!params.some((param) => param.in === 'query' && param.name === name))
      throw new ValidationError(name, `Unknown parameter ${name} for ${route.method} ${route.path}/`);
  }
  const fields = params.some((param) => param.in === 'body') ? bodyOf(body) : {};
  const values: Record<string, unknown> = {};
  for (const param of params) {
    let raw: unknown;
    if (param.in === 'query') raw = query[param.name];
    else if (param.in === 'path') raw = pathParams[param.name];
    else raw = fields[param.name] ?? (param.alias ? fields[param.alias] : undefined);
    if (raw === undefined || raw === null || raw === '') {
      if (param.required) throw new ValidationError(param.name, `${param.name} is required`);
      continue;
    }
    try {
      values[param.key] = param.in === 'body' ? raw : fromText(param.schema, raw);
    } catch (error) {
      throw error instanceof FieldError ? error.named(param.name) : error;
    }
  }
  return values;
}

/** The field's value from its text in a query string or a path. */
function fromText(schema: z.ZodType, raw: unknown): unknown {
  if (Array.isArray(raw)) throw new FieldError('value', '{name} must be given once');
  if (typeof raw !== 'string') throw new FieldError('value', '{name} must be a string');
  switch ((inputOf(schema).def as { type: string }).type) {
    case 'boolean': {
      const text = raw.trim().toLowerCase();
      if (text === 'true' || text === '1') return true;
      if (text === 'false' || text === '0') return false;
      throw new FieldError('value', '{name} must be true or false');
    }
    case 'number': {
      const text = raw.trim();
      if (!/^-?\d{1,15}$/.test(text)) throw new FieldError('value', '{name} must be a whole number');
      return Number(text);
    }
    case 'array':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ValidationError('body', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A resolver's FieldError named as REST names its parameter. */
export function restNamed(error: unknown, params: readonly RouteParam[]): unknown {
  if (!(error instanceof FieldError)) return error;
  const param = params.find((p) => p.key === error.field);
  return param ? error.named(param.name) : error;
}
