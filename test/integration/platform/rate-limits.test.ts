import { rateLimiterFor } from '../../../src/services/platform/rate-limiter';
import { startTestService, TestService } from '../../helpers/test-service';

/** Fires `count` requests at once and returns their results. */
function burst(service: TestService, count: number, path: string, key: string) {
  return Promise.all(Array.from({ length: count }, () => service.request(path, { key })));
}

describe('rate limits per key and family', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    // The limits' clock stands still unless a test moves it: a burst falls in one instant however
    // long the machine takes to answer it, and a window passes when the test says so.
    service.clock.freeze();
  });
  afterAll(() => service.stop());

  it('answers 429 with Retry-After once a 5/s family is exceeded, and lets exactly 5 through per second', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    const results = await burst(service, 20, '/v2/credits/balance/', apiKey);
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(15);
    for (const res of limited) {
      // The oldest call leaves the window in exactly one second.
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/rate limit/i) });
      expect(res.body.retryAfter).toBe(1);
    }
    // A millisecond before the window ends the key is still refused; at its end, 5 more go through.
    service.clock.advance(999);
    expect((await service.request('/v2/credits/balance/', { key: apiKey })).status).toBe(429);
    service.clock.advance(1);
    const next = await burst(service, 6, '/v2/credits/balance/', apiKey);
    expect(next.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('limits GraphQL and REST together (same field, same bucket)', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () => service.graphql(apiKey, '{ creditBalance { credits } }')),
      ...Array.from({ length: 10 }, () => service.request('/v2/credits/balance', { key: apiKey })),
    ]);
    const ok = results.filter((r) => r.status === 200 && !r.body.errors);
    expect(ok).toHaveLength(5);
    const gqlLimited = results
      .slice(0, 10)
      .filter((r) => r.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    const restLimited = results.slice(10).filter((r) => r.status === 429);
    expect(gqlLimited.length + restLimited.length).toBe(20 - ok.length);
    for (const res of gqlLimited) expect(res.body.errors[0].extensions.retryAfter).toBeGreaterThanOrEqual(1);
  });

  it('counts aliased fields of one GraphQL document one by one (no bypass by batching)', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    // 12 aliases: within GRAPHQL_MAX_ALIASES (15), beyond the small plan's 5 per second.
    const fields = Array.from({ length: 12 }, (_, i) => `b${i}: creditBalance { credits }`).join(' ');
    const res = await service.graphql(apiKey, `{ ${fields} }`);
    // creditBalance is non-null, so one refused field nulls the whole data (GraphQL's rule).
    expect(res.body.data).toBeNull();
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: expect.any(Number),
    });
    const refused = Number(String(res.body.errors[0].path[0]).slice(1));
    expect(refused).toBeGreaterThanOrEqual(5);
  });

  it('holds at the service level too, for concurrent calls (a worker obeys the same limits)', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    const principal = await service.running.services.auth.authenticate(apiKey);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        rateLimiterFor(service.running.services).consume(principal, 'credits'),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled').length).toBe(5);
  });

  it('keeps buckets apart: another key and another family are not affected', async () => {
    const first = await service.createAccount({ plan: 'small' });
    const second = await service.createAccount({ plan: 'small' });
    const flood = await burst(service, 20, '/v2/credits/balance/', first.apiKey);
    expect(flood.some((r) => r.status === 429)).toBe(true);
    // Same moment, other key: its own bucket is untouched.
    const other = await burst(service, 5, '/v2/credits/balance/', second.apiKey);
    expect(other.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Same key, other family (usage): its own bucket too.
    expect((await service.request('/lookup/v1/usage', { key: first.apiKey })).status).toBe(200);
  });

  it('keeps two keys of one account apart (the limit is per key)', async () => {
    const { accountId, apiKey } = await service.createAccount({ plan: 'small' });
    const { apiKey: secondKey } = await service.running.services.accounts.createKey(accountId);
    const flood = await burst(service, 20, '/v2/credits/balance/', apiKey);
    expect(flood.some((r) => r.status === 429)).toBe(true);
    expect((await service.request('/v2/credits/balance/', { key: secondKey })).status).toBe(200);
  });

  it('does not count a rate-limited request toward the quota', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    const flood = await burst(service, 20, '/v2/credits/balance/', apiKey);
    const ok = flood.filter((r) => r.status === 200).length;
    const usage = await service.request('/lookup/v1/usage', { key: apiKey });
    // ok balance reads plus this usage request itself.
    expect(usage.body.plan.quota.remaining).toBe(usage.body.api.quota.limit - ok - 1);
  });
});
