import { z } from 'zod';

/** The subset of JSON Schema (2020-12, as OpenAPI 3.1 uses it) that the route table writes. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  $ref?: string;
  examples?: unknown[];
}

export const ERROR_BODY_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Error body of every 4xx/5xx response of the REST API',
  required: ['code', 'message', 'requestId'],
  properties: {
    code: {
      type: 'string',
      description: 'Stable error code, e.g. BAD_REQUEST, UNAUTHENTICATED, RATE_LIMITED',
    },
    message: { type: 'string', description: 'What went wrong, naming the parameter where one is at fault' },
    parameter: { type: 'string', description: 'The offending parameter (400 responses)' },
    retryAfter: {
      type: 'integer',
      description: 'Seconds to wait (429 responses; also the Retry-After header)',
    },
    requestId: { type: 'string' },
  },
  additionalProperties: true,
};

/**
 * The JSON Schema of a published shape declared with zod (see src/services/analysis-shapes.ts), so
 * the OpenAPI document, the TypeScript type and the presenter all come from one declaration.
 */
export function jsonSchemaOfShape(shape: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(shape, { target: 'draft-2020-12', io: 'output' });
  return schema as JsonSchema;
}
