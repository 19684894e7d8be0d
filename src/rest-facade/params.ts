import { ValidationError } from '../errors';
import type { ParamSpec } from './route';

/**
 * Parameter parsers: each validates its raw value and throws a ValidationError that names the
 * parameter. Query values arrive as strings; a repeated query parameter is refused rather than
 * silently picking one value.
 */
type Where = 'query' | 'path' | 'body';

interface Common {
  name: string;
  description: string;
  required?: boolean;
  in?: Where;
}

function single(name: string, raw: unknown): string {
  if (Array.isArray(raw)) throw new ValidationError(name, `${name} must be given once`);
  if (typeof raw !== 'string') throw new ValidationError(name, `${name} must be a string`);
  return raw;
}

/** What every parameter spec shares: its name, where it comes from, whether it is required, its text. */
function common(opts: Common): Pick<ParamSpec, 'name' | 'in' | 'required' | 'description'> {
  return {
    name: opts.name,
    in: opts.in ?? 'query',
    required: opts.required ?? false,
    description: opts.description,
  };
}

export function stringParam(
  opts: Common & { maxLength: number; pattern?: RegExp; patternText?: string },
): ParamSpec<string> {
  return {
    ...common(opts),
    schema: {
      type: 'string',
      maxLength: opts.maxLength,
      ...(opts.pattern ? { pattern: opts.pattern.source } : {}),
    },
    parse(raw) {
      const value = single(opts.name, raw).trim();
      if (value.length === 0) throw new ValidationError(opts.name, `${opts.name} must not be empty`);
      if (value.length > opts.maxLength) {
        throw new ValidationError(opts.name, `${opts.name} must be at most ${opts.maxLength} characters`);
      }
      if (opts.pattern && !opts.pattern.test(value)) {
        throw new ValidationError(
          opts.name,
          `${opts.name} ${opts.patternText ?? `must match ${opts.pattern.source}`}`,
        );
      }
      return value;
    },
  };
}

/**
 * A string given once whose bounds the service behind it checks (the schema documents them), so
 * that the rule and its message exist in one place for REST and GraphQL alike.
 */
export function serviceCheckedStringParam(opts: Common & { maxLength: number }): ParamSpec<string> {
  return {
    ...common(opts),
    schema: { type: 'string', maxLength: opts.maxLength },
    parse: (raw) => single(opts.name, raw).trim(),
  };
}

export function booleanParam(opts: Common & { default: boolean }): ParamSpec<boolean> {
  return {
    ...common(opts),
    schema: { type: 'boolean', default: opts.default },
    parse(raw) {
      if (typeof raw === 'boolean') return raw;
      const value = single(opts.name, raw).trim().toLowerCase();
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw new ValidationError(opts.name, `${opts.name} must be true or false`);
    },
  };
}

export function integerParam(
  opts: Common & { min: number; max: number; multipleOf?: number; default?: number },
): ParamSpec<number> {
  return {
    ...common(opts),
    schema: {
      type: 'integer',
      minimum: opts.min,
      maximum: opts.max,
      ...(opts.multipleOf ? { multipleOf: opts.multipleOf } : {}),
      ...(opts.default !== undefined ? { default: opts.default } : {}),
    },
    parse(raw) {
      const text = typeof raw === 'number' ? String(raw) : single(opts.name, raw).trim();
      if (!/^-?\d{1,15}$/.test(text))
        throw new ValidationError(opts.name, `${opts.name} must be a whole number`);
      const value = Number(text);
      if (value < opts.min || value > opts.max) {
        throw new ValidationError(opts.name, `${opts.name} must be between ${opts.min} and ${opts.max}`);
      }
      if (opts.multipleOf && value % opts.multipleOf !== 0) {
        throw new ValidationError(opts.name, `${opts.name} must be a multiple of ${opts.multipleOf}`);
      }
      return value;
    },
  };
}

/** A comma-separated list (the spec's `urls` and `domains`), with item count and length bounds. */
export function csvParam(
  opts: Common & { minItems: number; maxItems: number; itemMaxLength: number },
): ParamSpec<string[]> {
  return {
    ...common(opts),
    schema: { type: 'string', description: `Comma-separated, ${opts.minItems} to ${opts.maxItems} items` },
    parse(raw) {
      const items = single(opts.name, raw)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (items.length < opts.minItems || items.length > opts.maxItems) {
        throw new ValidationError(
          opts.name,
          `${opts.name} must hold ${opts.minItems} to ${opts.maxItems} comma-separated values`,
        );
      }
      for (const item of items) {
        if (item.length > opts.itemMaxLength) {
          throw new ValidationError(
            opts.name,
            `${opts.name}: each value must be at most ${opts.itemMaxLength} characters`,
          );
        }
      }
      return items;
    },
  };
}

/** The spec's `urls` of Live, Crawl and Lookup v2: one to ten comma-separated URLs. */
export function urlListParam(description: string): ParamSpec<string[]> {
  return csvParam({
    name: 'urls',
    required: true,
    minItems: 1,
    maxItems: 10,
    itemMaxLength: 2048,
    description,
  });
}

/** An http(s) URL; a bare host name gets http:// like the published examples (e.g. url=example.com). */
/**
 * A target URL. It is parsed once, by the resolver behind the route (parseHttpUrl, which GraphQL
 * callers go through too), so REST and GraphQL give the same message and the URL is not parsed twice.
 */
export function urlParam(opts: Common): ParamSpec<string> {
  return {
    ...common(opts),
    schema: { type: 'string', format: 'uri', maxLength: 2048 },
    parse: (raw) => single(opts.name, raw),
  };
}
/** A closed set of values (e.g. the family of a usage path is fixed by the route, not a parameter). */
export function enumParam<T extends string>(
  opts: Common & { values: readonly T[]; default?: T },
): ParamSpec<T> {
  return {
    ...common(opts),
    schema: { type: 'string', enum: [...opts.values], ...(opts.default ? { default: opts.default } : {}) },
    parse(raw) {
      const value = single(opts.name, raw).trim();
      if (!(opts.values as readonly string[]).includes(value)) {
        throw new ValidationError(opts.name, `${opts.name} must be one of ${opts.values.join(', ')}`);
      }
      return value as T;
    },
  };
}

/** A JSON body's array of strings: at most this many raw items before any finer check. */
const MAX_RAW_ITEMS = 1000;

/** A body array of strings (each item type-checked; the service validates the values). */
export function stringArrayParam(name: string, description: string): ParamSpec<string[]> {
  return {
    name,
    in: 'body',
    required: false,
    description,
    schema: { type: 'array', items: { type: 'string' } },
    parse(raw) {
      if (!Array.isArray(raw)) throw new ValidationError(name, `${name} must be an array of strings`);
      if (raw.length > MAX_RAW_ITEMS) throw new ValidationError(name, `${name} holds too many values`);
      raw.forEach((item, i) => {
        if (typeof item !== 'string') throw new ValidationError(name, `${name}[${i}] must be a string`);
      });
      return raw as string[];
    },
  };
}
