import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestService, TestService } from '../../helpers/test-service';

const INTROSPECTION = '{ __schema { queryType { name } } }';
const TYPE_QUERY = '{ __type(name: "Query") { name } }';
const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

describe('operator pages: /docs and the GraphQL explorer (defaults)', () => {
  let service: TestService;
  let apiKey: string;

  beforeAll(async () => {
    service = await startTestService();
    ({ apiKey } = await service.createAccount());
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('serves /docs with its assets from the service itself, under a strict CSP', async () => {
    const page = await service.request('/docs', { headers: BROWSER });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    // Every script and stylesheet is a path on this service, and each one is served.
    const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      expect(ref).toMatch(/^\/docs\/assets\//);
      const asset = await service.request(ref);
      expect(asset.status).toBe(200);
      expect(asset.text.length).toBeGreaterThan(10);
    }
    expect(page.text).not.toMatch(/<script>/);
    expect((await service.request('/docs/assets/package.json')).status).toBe(404);
    expect((await service.request('/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });

  it('answers GET /graphql from a browser with the explorer, and API clients with Apollo as before', async () => {
    const page = await service.request('/graphql', { headers: BROWSER });
    expect(page.status).toBe(200);
    expect(page.text).toContain('graphiql.min.js');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    for (const ref of [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])) {
      expect(ref).toMatch(/^\/graphql\/assets\//);
      expect((await service.request(ref)).status).toBe(200);
    }
    // A GET query from an API client still runs (Apollo), without the page's headers.
    const viaGet = await service.request(`/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      key: apiKey,
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body).toEqual({ data: { __typename: 'Query' } });
    const post = await service.graphql(apiKey, '{ __typename }');
    expect(post.body).toEqual({ data: { __typename: 'Query' } });
    expect(post.headers.get('content-security-policy')).toBeNull();
  });

  it('answers introspection to a valid key only (GRAPHQL_INTROSPECTION=key)', async () => {
    for (const query of [
      INTROSPECTION,
      TYPE_QUERY,
      `query Q { ...F } fragment F on Query { __schema { description } }`,
    ]) {
      const anonymous = await service.graphql(undefined, query);
      expect(anonymous.status).toBe(403);
      expect(anonymous.body.data).toBeUndefined();
      expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(anonymous.body.errors[0].message).toMatch(/Introspection needs a valid API key/);
      const badKey = await service.graphql('tis_not-a-real-key-0000000000', query);
      expect(badKey.status).toBe(403);
    }
    const keyed = await service.graphql(apiKey, INTROSPECTION);
    expect(keyed.status).toBe(200);
    expect(keyed.body.data.__schema.queryType.name).toBe('Query');
    // __typename is not introspection: anonymous callers may ask it.
    const typename = await service.graphql(undefined, '{ __typename }');
    expect(typename.body).toEqual({ data: { __typename: 'Query' } });
  });
});

describe('operator pages turned off', () => {
  let service: TestService;
  let apiKey: string;

  beforeAll(async () => {
    service = await startTestService({
      DOCS_ENABLED: 'false',
      GRAPHQL_EXPLORER_ENABLED: 'false',
      GRAPHQL_INTROSPECTION: 'off',
    });
    ({ apiKey } = await service.createAccount());
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('serves neither /docs nor the explorer', async () => {
    expect((await service.request('/docs', { headers: BROWSER })).status).toBe(404);
    expect((await service.request('/docs/assets/swagger-ui-bundle.js')).status).toBe(404);
    const graphql = await service.request('/graphql', { headers: BROWSER });
    expect(graphql.text).not.toContain('graphiql');
    expect((await service.request('/graphql/assets/graphiql.min.js')).text).not.toContain('GraphiQL');
  });

  it('refuses introspection to everyone with GRAPHQL_INTROSPECTION=off, and still runs queries', async () => {
    for (const key of [undefined, apiKey]) {
      const res = await service.graphql(key, INTROSPECTION);
      expect(res.status).toBe(403);
      expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
      expect(res.body.errors[0].message).toBe('Introspection is turned off on this service');
    }
    expect((await service.graphql(apiKey, '{ __typename }')).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses introspection over the WebSocket too', async () => {
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
    });
    try {
      const run = async (query: string) => {
        const results: unknown[] = [];
        try {
          for await (const result of client.iterate({ query })) results.push(result);
        } catch (error) {
          results.push({ thrown: error });
        }
        return results;
      };
      const refused = await run(INTROSPECTION);
      expect(refused).toHaveLength(1);
      expect(refused[0]).not.toHaveProperty('data');
      expect(JSON.stringify(refused)).toMatch(/introspection has been disabled/);
      expect(await run('{ __typename }')).toEqual([{ data: { __typename: 'Query' } }]);
    } finally {
      await client.dispose();
    }
  });
});

describe('GRAPHQL_INTROSPECTION=public and SECURITY_HEADERS_ENABLED=false', () => {
  it('answers introspection without a key and serves the pages without the security headers', async () => {
    const service = await startTestService({
      GRAPHQL_INTROSPECTION: 'public',
      SECURITY_HEADERS_ENABLED: 'false',
    });
    try {
      const res = await service.graphql(undefined, INTROSPECTION);
      expect(res.status).toBe(200);
      expect(res.body.data.__schema.queryType.name).toBe('Query');
      const page = await service.request('/docs', { headers: BROWSER });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toBeNull();
    } finally {
      await service.stop();
    }
  });
});
