import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** The parts of an OpenAPI 3.1 document the contract helpers read. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface OpenApiOperation {
  operationId?: string;
  responses: Record<
    string,
    { content?: Record<string, { schema: object }>; headers?: Record<string, { schema: object }> }
  >;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Fetches and parses the served contract. */
export async function fetchOpenApiDocument(baseUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(`${baseUrl}/openapi/v2-public.yaml`);
  if (res.status !== 200) throw new Error(`GET /openapi/v2-public.yaml answered ${res.status}`);
  return parse(await res.text()) as OpenApiDocument;
}

/**
 * Validates a document against the official OpenAPI schemas with @seriousme/openapi-schema-validator.
 * The package is ESM-only, which Jest's CommonJS runtime cannot load, so it runs in a child node.
 */
export async function validateOpenApiDocument(
  document: object,
): Promise<{ valid: boolean; version?: string; errors?: unknown }> {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
  `;
  const run = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    cwd: join(__dirname, '..', '..'),
  });
  run.child.stdin!.end(JSON.stringify(document));
  const { stdout } = await run;
  return JSON.parse(stdout);
}

const validators = new WeakMap<OpenApiDocument, Map<string, ValidateFunction>>();
let ajv: Ajv2020 | undefined;

function compile(document: OpenApiDocument, cacheKey: string, schema: object): ValidateFunction {
  const perDocument = validators.get(document) ?? new Map<string, ValidateFunction>();
  validators.set(document, perDocument);
  let validate = perDocument.get(cacheKey);
  if (!validate) {
    if (!ajv) {
      // strict off: OpenAPI documents may carry keywords (e.g. `example`) that are not JSON Schema.
      ajv = new Ajv2020({ allErrors: true, strict: false });
      addFormats(ajv);
    }
    // The response schema is compiled with the document's components beside it, so a
    // `#/components/schemas/...` reference resolves against this document.
    validate = ajv.compile({ ...schema, components: document.components });
    perDocument.set(cacheKey, validate);
  }
  return validate;
}

/**
 * The documented path template that serves `path` (with or without its trailing slash). Literal
 * segments win over parameters, as in the service's router: `/v2/lists/usage` is the usage path,
 * not the list `usage`.
 */
export function findPathTemplate(document: OpenApiDocument, path: string): string | undefined {
  const wanted = path.split('?')[0].split('/').filter(Boolean);
  const literals = (template: string) =>
    template.split('/').filter((part) => part && !/^\{.+\}$/.test(part)).length;
  return Object.keys(document.paths)
    .filter((template) => {
      const parts = template.split('/').filter(Boolean);
      return (
        parts.length === wanted.length &&
        parts.every((part, i) => /^\{.+\}$/.test(part) || part === wanted[i])
      );
    })
    .sort((a, b) => literals(b) - literals(a))[0];
}

/**
 * Asserts that a real response matches the contract: the path and method are documented, the status
 * is a documented response of that operation, the JSON body validates against its schema (JSON
 * Schema 2020-12, as OpenAPI 3.1 uses) and, when `headers` are given, every documented response
 * header is present and valid. Two cases have no operation to look up and are checked against the
 * shared error body (components.schemas.Error): 404 for a path the document does not list, and 405
 * for a method a documented path does not have.
 */
export function expectMatchesContract(
  document: OpenApiDocument,
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers?: Headers,
): void {
  const template = findPathTemplate(document, path);
  const operation = template ? document.paths[template][method.toLowerCase()] : undefined;
  let schema: object | undefined;
  let documentedHeaders: Record<string, { schema: object }> = {};
  let where: string;
  if (!template || !operation) {
    where = `${method} ${path} (${template ? 'undocumented method' : 'undocumented path'})`;
    const expected = template ? 405 : 404;
    if (status !== expected) throw new Error(`${where}: only a ${expected} can be checked, got ${status}`);
    if (template) {
      const allowed = METHODS.filter((m) => document.paths[template][m]);
      const documented = allowed.map((m) => document.paths[template][m].responses['405']).find(Boolean);
      if (!documented) throw new Error(`${where}: no operation of ${template} documents a 405`);
      schema = documented.content?.['application/json']?.schema;
    } else {
      schema = document.components?.schemas?.Error ? { $ref: '#/components/schemas/Error' } : undefined;
    }
  } else {
    where = `${method} ${template} → ${status}`;
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) {
      throw new Error(
        `${where}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`,
      );
    }
    schema = response.content?.['application/json']?.schema;
    documentedHeaders = response.headers ?? {};
  }
  if (!schema) throw new Error(`${where}: no application/json schema documented`);
  const validate = compile(document, `${method} ${template} ${status}`, schema);
  if (!validate(body)) {
    throw new Error(
      `${where}: body does not match the contract: ${JSON.stringify(validate.errors)}\nbody: ${JSON.stringify(body)}`,
    );
  }
  if (headers) {
    for (const [name, header] of Object.entries(documentedHeaders)) {
      const raw = headers.get(name);
      if (raw === null) throw new Error(`${where}: documented header ${name} is missing`);
      const value = /^-?\d+$/.test(raw) ? Number(raw) : raw;
      const check = compile(document, `${method} ${template} ${status} header ${name}`, header.schema);
      if (!check(value))
        throw new Error(`${where}: header ${name}=${raw} does not match ${JSON.stringify(header.schema)}`);
    }
  }
}
