import { get } from 'node:http';
import { paramsOf } from '../../../src/rest-facade/params';
import { ROUTE_TABLE } from '../../../src/rest-facade/route-table';
import {
  expectMatchesContract,
  fetchOpenApiDocument,
  OpenApiDocument,
  validateOpenApiDocument,
} from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';

describe('the OpenAPI contract', () => {
  let service: TestService;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    service = await startTestService();
    doc = await fetchOpenApiDocument(service.url);
  });
  afterAll(() => service.stop());

  it('is served as YAML and validates as OpenAPI 3.1', async () => {
    const res = await service.request('/openapi/v2-public.yaml');
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    expect(doc.openapi).toBe('3.1.0');
    const result = await validateOpenApiDocument(doc);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
  });

  it('carries an ETag that revalidates to 304; metered answers carry none', async () => {
    const first = await service.request('/openapi/v2-public.yaml');
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    // node:http, not fetch: fetch adds Cache-Control: no-cache to a request with If-None-Match.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${service.url}/openapi/v2-public.yaml`, { headers: { 'if-none-match': tag! } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject),
    );
    expect(status).toBe(304);
    const { apiKey } = await service.createAccount({ credits: 5 });
    const balance = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(balance.status).toBe(200);
    expect(balance.headers.get('etag')).toBeNull();
  });

  it('fails validation for a broken document (the validator really checks)', async () => {
    const result = await validateOpenApiDocument({ ...doc, info: undefined });
    expect(result.valid).toBe(false);
  });

  it('lists every route of the table in its slash form, and the service answers both forms', async () => {
    for (const route of ROUTE_TABLE) {
      expect(doc.paths[`${route.path}/`]?.[route.method.toLowerCase()]).toMatchObject({
        operationId: route.operationId,
      });
      expect(doc.paths[route.path]).toBeUndefined();
    }
    // One key per route: the usage family's per-second limit must not interfere. Routes with required
    // parameters answer 400 here, which must be documented too; routes without answer 200.
    for (const route of ROUTE_TABLE.filter((r) => r.method === 'GET' && !r.path.includes('{'))) {
      const { apiKey } = await service.createAccount({ plan: 'business' });
      const expected = paramsOf(route).some((p) => p.required) ? 400 : 200;
      for (const path of [route.path, `${route.path}/`]) {
        const res = await service.request(path, { key: apiKey });
        expect(`${path} ${res.status}`).toBe(`${path} ${expected}`);
        expectMatchesContract(doc, 'GET', path, res.status, res.body, res.headers);
      }
    }
  });

  it('has unique operation ids', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes the real 200, 400, 403, 404, 405 and 429 responses', async () => {
    const { apiKey } = await service.createAccount({ credits: 12 });
    const balance = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(balance.status).toBe(200);
    expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 200, balance.body, balance.headers);

    const usage = await service.request('/lookup/v1/usage', { key: apiKey });
    expectMatchesContract(doc, 'GET', '/lookup/v1/usage', usage.status, usage.body, usage.headers);

    const forbidden = await service.request('/v2/credits/balance/', { key: 'tis_wrong' });
    expect(forbidden.status).toBe(403);
    expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 403, forbidden.body);

    const bad = await service.request('/v2/credits/balance/?nope=1', { key: apiKey });
    expect(bad.status).toBe(400);
    expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 400, bad.body);

    const missing = await service.request('/v2/nothing/', { key: apiKey });
    expect(missing.status).toBe(404);
    expectMatchesContract(doc, 'GET', '/v2/nothing/', 404, missing.body);

    const wrongMethod = await service.request('/v2/credits/balance/', { key: apiKey, method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expectMatchesContract(doc, 'POST', '/v2/credits/balance/', 405, wrongMethod.body);

    const burst = await Promise.all(
      Array.from({ length: 12 }, () => service.request('/v2/credits/balance', { key: apiKey })),
    );
    const limited = burst.find((r) => r.status === 429);
    expect(limited).toBeDefined();
    expectMatchesContract(doc, 'GET', '/v2/credits/balance', 429, limited!.body);
  });

  it('rejects responses that break the contract (the helper can fail)', () => {
    expect(() => expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 200, { credits: '12' })).toThrow(
      /does not match/,
    );
    expect(() => expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 200, {})).toThrow(
      /does not match/,
    );
    expect(() => expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 418, {})).toThrow(
      /not documented/,
    );
    expect(() => expectMatchesContract(doc, 'GET', '/lookup/v1/usage/', 200, { api: {}, plan: {} })).toThrow(
      /does not match/,
    );
    expect(() =>
      expectMatchesContract(doc, 'GET', '/v2/credits/balance/', 403, { message: 'no code' }),
    ).toThrow(/does not match/);
    expect(() => expectMatchesContract(doc, 'GET', '/v2/nothing', 200, {})).toThrow(/only a 404/);
    expect(() =>
      expectMatchesContract(
        doc,
        'GET',
        '/v2/credits/balance/',
        200,
        { credits: 1 },
        new Headers({ 'service-credits-spent': '0' }),
      ),
    ).toThrow(/service-credits-remaining is missing/);
  });
});
