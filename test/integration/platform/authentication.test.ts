import { createHash } from 'node:crypto';
import { startTestService, TestService } from '../../helpers/test-service';

describe('authentication', () => {
  let service: TestService;
  let apiKey: string;

  beforeAll(async () => {
    service = await startTestService();
    ({ apiKey } = await service.createAccount({ plan: 'small', credits: 7 }));
  });
  afterAll(() => service.stop());

  it('answers 403 naming the problem when the key is missing', async () => {
    const res = await service.request('/v2/credits/balance/');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/missing api key/i),
    });
    expect(res.body.requestId).toEqual(res.headers.get('x-request-id'));
  });

  it('answers 403 for an unknown key', async () => {
    const res = await service.request('/v2/credits/balance/', { key: apiKey + 'x' });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/invalid api key/i);
  });

  it('accepts the header in any letter case', async () => {
    for (const name of ['x-api-key', 'X-Api-Key', 'X-API-KEY']) {
      const res = await service.request('/v2/credits/balance', { headers: { [name]: apiKey } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ credits: 7 });
    }
  });

  it('refuses a revoked key, also over GraphQL with extensions.code', async () => {
    const { apiKey: other } = await service.createAccount();
    expect((await service.request('/v2/credits/balance/', { key: other })).status).toBe(200);
    await service.running.services.accounts.revokeKey({ apiKey: other });
    const rest = await service.request('/v2/credits/balance/', { key: other });
    expect(rest.status).toBe(403);
    expect(rest.body.message).toMatch(/revoked/);
    const gql = await service.graphql(other, '{ creditBalance { credits } }');
    expect(gql.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(gql.body.errors[0].message).toMatch(/revoked/);
    expect(gql.body.data).toBeNull();
  });

  it('stores keys hashed: the plaintext appears nowhere in the database', async () => {
    const rows = await service.running.services.db.query<{ key_hash: string; key_prefix: string }[]>(
      'SELECT key_hash, key_prefix FROM api_keys',
    );
    expect(rows.length).toBeGreaterThan(0);
    const expectedHash = createHash('sha256').update(apiKey).digest('hex');
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_prefix).toHaveLength(12);
    }
    const own = rows.find((row) => row.key_hash === expectedHash);
    expect(own?.key_prefix).toBe(apiKey.slice(0, 12));
    const dump = JSON.stringify(await service.running.services.db.query('SELECT * FROM api_keys'));
    expect(dump).not.toContain(apiKey);
  });

  it('leaves /healthz and the OpenAPI document open', async () => {
    expect((await service.request('/healthz')).body).toEqual({ status: 'ok', database: 'ok' });
    expect((await service.request('/openapi/v2-public.yaml')).status).toBe(200);
  });
});
