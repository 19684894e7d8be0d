import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logger } from '../../../src/platform/logger';
import { fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Every route of the published contract, read from the served OpenAPI document (so a new route is
 * fuzzed without touching this file), gets hostile parameters, path ids and bodies: none may answer
 * 5xx, drop the connection or log an error, every 4xx carries the documented error body, and the
 * service stays responsive. The inputs are drawn from a seeded generator, so a failure reproduces.
 */

interface Parameter {
  name: string;
  in: 'query' | 'path';
  schema: { type?: string };
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
}

/** mulberry32: a small deterministic generator. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Query and path values a hostile or careless client sends. */
const HOSTILE_TEXT = [
  '',
  ' ',
  'x'.repeat(5000),
  '\u0000',
  '%00',
  '../../../etc/passwd',
  '-1',
  '0',
  '1e309',
  '99999999999999999999999',
  'NaN',
  '[]',
  '{}',
  'null',
  'true',
  '__proto__',
  'constructor',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  'http://169.254.169.254/latest/meta-data/',
  'http://127.0.0.1:1/',
  'ftp://example.com/',
  'javascript:alert(1)',
  'http://user:pass@example.com/',
  'http://[::1]/',
  'xn--ls8h.example',
  '💥'.repeat(300),
  'a,b,,c,' + ','.repeat(200),
  '\r\nX-Injected: 1',
];

/** Body values of the wrong type, size or shape for any field. */
const HOSTILE_VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  1e308,
  true,
  'x'.repeat(20_000),
  [],
  [null],
  Array.from({ length: 600 }, (_, i) => `item${i}`),
  {},
  { $gt: '' },
  { __proto__: { polluted: true } },
  [{ slug: { nested: [] } }],
  '💥',
];

/** Whole bodies that are not what any route takes. */
const HOSTILE_BODIES: { body: string; contentType: string }[] = [
  { body: '{', contentType: 'application/json' },
  { body: '[]', contentType: 'application/json' },
  { body: 'null', contentType: 'application/json' },
  { body: '"text"', contentType: 'application/json' },
  { body: '123', contentType: 'application/json' },
  { body: '{"__proto__": {"polluted": true}}', contentType: 'application/json' },
  { body: '['.repeat(5000) + ']'.repeat(5000), contentType: 'application/json' },
  { body: 'technologies=wordpress', contentType: 'application/x-www-form-urlencoded' },
  { body: '<xml/>', contentType: 'text/xml' },
  { body: '{"a": 1}', contentType: 'text/plain' },
];

const PLANS = `
plans:
  fuzz:
    extends: business
    quota: null
    rateLimits:
      "*": { max: 1000000, windowSeconds: 1 }
`;

describe('every published route under hostile input', () => {
  let service: TestService;
  let key: string;
  let document: OpenApiDocument;
  let errorLog: jest.SpyInstance;
  /** How many answers of each status the fuzzing got, to show it reached the routes' validation. */
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    const plansFile = join(mkdtempSync(join(tmpdir(), 'fuzz-plans-')), 'plans.yaml');
    writeFileSync(plansFile, PLANS);
    // Hostile targets must be refused by the guard, not fetched: private targets stay forbidden.
    service = await startTestService({ PLANS_FILE: plansFile, ALLOW_PRIVATE_TARGETS: 'false' });
    key = (await service.createAccount({ plan: 'fuzz', credits: 1_000_000 })).apiKey;
    document = await fetchOpenApiDocument(service.url);
  });
  afterAll(() => service.stop());
  beforeEach(() => {
    errorLog = jest.spyOn(logger, 'error');
  });
  afterEach(() => {
    const errors = errorLog.mock.calls.map((call) => call.at(-1));
    jest.restoreAllMocks();
    expect(errors).toEqual([]);
  });

  const operations = (): { method: string; path: string; operation: Operation }[] =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operation: operation as unknown as Operation,
      })),
    );

  /** One request; checks what every answer must be, and returns its status. */
  async function send(
    what: string,
    method: string,
    path: string,
    init: { body?: string; contentType?: string; key?: string } = {},
  ): Promise<number> {
    const headers: Record<string, string> = {};
    if (init.key !== undefined) headers['x-api-key'] = init.key;
    if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
    let response: Response;
    try {
      response = await fetch(service.url + path, {
        method,
        headers,
        body: init.body,
        signal: AbortSignal.timeout(20_000),
      });
    } catch (error) {
      throw new Error(`${what}: ${method} ${path.slice(0, 200)} got no answer (${String(error)})`);
    }
    const text = await response.text();
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const failure = `${what}: ${method} ${path.slice(0, 200)} answered ${response.status} ${text.slice(0, 300)}`;
    if (response.status >= 500) throw new Error(failure);
    // Node's HTTP server answers a request line longer than its header limit (16 KB) itself, before
    // any route: several long hostile values in one query (the change feed has eight parameters).
    if (response.status === 431 && path.length > 16_000) return response.status;
    if (response.status >= 400 && method !== 'HEAD') {
      let body: { code?: unknown; message?: unknown; requestId?: unknown };
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`${failure} (not the JSON error body)`);
      }
      if (typeof body.code !== 'string' || typeof body.message !== 'string' || !body.requestId) {
        throw new Error(`${failure} (not the documented error body)`);
      }
    }
    return response.status;
  }

  /** A concrete path for a template: each {param} replaced by `value` (or a plausible id). */
  const fill = (template: string, value: (name: string) => string) =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(value(name)));

  it('hostile query and path parameters never give a 5xx, a dropped connection or an error log', async () => {
    const random = generator(20261123);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)];
    let sent = 0;
    for (const { method, path, operation } of operations()) {
      const params = operation.parameters ?? [];
      const plain = fill(path, () => 'lst_000000000000000000000000');
      // No parameter at all, with and without a key.
      await send('bare', method, plain, { key });
      await send('no key', method, plain);
      sent += 2;
      for (const param of params) {
        for (const value of HOSTILE_TEXT) {
          const others = params
            .filter((p) => p !== param && p.in === 'query')
            .map((p) => `${p.name}=${encodeURIComponent(pick(HOSTILE_TEXT))}`);
          const target =
            param.in === 'path'
              ? fill(path, (name) => (name === param.name ? value : 'lst_000000000000000000000000'))
              : `${plain}?${[`${param.name}=${encodeURIComponent(value)}`, ...(random() < 0.5 ? others : [])].join('&')}`;
          await send(`${param.name}=${JSON.stringify(value.slice(0, 40))}`, method, target, { key });
          sent++;
        }
        if (param.in === 'query') {
          // Given twice, and as a bracketed array or object (qs-style parsers turn these into arrays and objects).
          for (const form of [`${param.name}=a&${param.name}=b`, `${param.name}[]=a`, `${param.name}[x]=1`]) {
            await send(form, method, `${plain}?${form}`, { key });
            sent++;
          }
        }
      }
      // A raw, invalid percent-encoding in the query.
      await send('bad percent-encoding', method, `${plain}?${params[0]?.name ?? 'q'}=%E0%A4%A`, { key });
      sent++;
    }
    expect(sent).toBeGreaterThan(500);
    // It got past authentication and the rate limits to the routes: validation (400) answered most.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(sent / 2);
    expect([...statuses.keys()].some((status) => status >= 200 && status < 300)).toBe(true);
    expect((await service.request('/healthz')).status).toBe(200);
  });

  it('hostile bodies and field values never give a 5xx, a dropped connection or an error log', async () => {
    const random = generator(1123);
    const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)];
    let sent = 0;
    for (const { method, path, operation } of operations()) {
      if (method === 'GET' || method === 'HEAD') continue;
      const target = fill(path, () => 'lst_000000000000000000000000');
      for (const { body, contentType } of HOSTILE_BODIES) {
        await send(`body ${body.slice(0, 30)}`, method, target, { key, body, contentType });
        sent++;
      }
      const fields = Object.keys(operation.requestBody?.content['application/json']?.schema.properties ?? {});
      for (const field of fields) {
        for (const value of HOSTILE_VALUES) {
          // The field alone, and among other fields holding random hostile values.
          const body: Record<string, unknown> = { [field]: value };
          if (random() < 0.5)
            for (const other of fields) if (other !== field) body[other] = pick(HOSTILE_VALUES);
          await send(`${field}=${JSON.stringify(value)?.slice(0, 40)}`, method, target, {
            key,
            body: JSON.stringify(body),
          });
          sent++;
        }
      }
    }
    expect(sent).toBeGreaterThan(100);
    expect((await service.request('/healthz')).status).toBe(200);
  });

  it('hostile GraphQL requests answer with GraphQL errors, never INTERNAL_SERVER_ERROR', async () => {
    const documents: unknown[] = [
      { query: '{' },
      { query: '' },
      { query: null },
      { query: 42 },
      { query: '{ __typename }', variables: 'not an object' },
      { query: '{ __typename }', operationName: 7 },
      { query: 'query A { __typename } query B { __typename }' },
      { query: 'query ($u: String!) { analyze(url: $u) { url } }', variables: { u: 12 } },
      { query: 'query ($u: String!) { analyze(url: $u) { url } }', variables: {} },
      { query: '{ analyze(url: "x".repeat) { url } }' },
      { query: `{ ${'a: __typename '.repeat(2000)} }` },
      { query: `{ myAccount { ${'id '.repeat(500)} } }` },
      { query: 'mutation { nonexistent }' },
      { query: 'subscription { creditsChanged { balance } }' },
      { query: '{ lookupV2(urls: ["http://169.254.169.254/"]) { url } }' },
      { query: '{ lookupV2(urls: []) { url } }' },
      { query: '{ verifyEmail(email: "\\u0000@\\u0000") { reachable } }' },
      { query: `{ lists(first: -1) { id } }` },
      [{ query: '{ __typename }' }, { query: '{ __typename }' }],
      { extensions: { persistedQuery: { version: 1, sha256Hash: 'nope' } } },
    ];
    for (const body of documents) {
      const res = await service.request('/graphql', { key, method: 'POST', body });
      const what = `${JSON.stringify(body).slice(0, 80)} → ${res.status} ${res.text.slice(0, 300)}`;
      if (res.status >= 500) throw new Error(what);
      const codes = ((res.body?.errors ?? []) as { extensions?: { code?: string } }[]).map(
        (e) => e.extensions?.code,
      );
      if (codes.includes('INTERNAL_SERVER_ERROR')) throw new Error(what);
    }
    expect((await service.request('/healthz')).status).toBe(200);
  });
});
