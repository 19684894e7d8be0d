import { startTestService, TestService } from '../../helpers/test-service';
import { untilNotRateLimited } from '../../helpers/test-retry';

const DEMO_KEY = 'demo-key-for-tests-0123456789';

describe('the demo key', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ DEMO_API_KEY: DEMO_KEY });
  });
  afterAll(() => service.stop());

  it('allows ten requests per day across all APIs, REST and GraphQL, then answers 429', async () => {
    // The demo plan's per-second limits are tight, so each request waits out a rate limit if it hits one:
    // only the daily quota decides the outcome here.
    const sends = [
      () => service.request('/v2/credits/balance/', { key: DEMO_KEY }),
      () => service.request('/lookup/v1/usage', { key: DEMO_KEY }),
      () => service.graphql(DEMO_KEY, '{ account { plan } }'),
      () => service.graphql(DEMO_KEY, '{ creditBalance { credits } }'),
      () => service.request('/v2/subdomains/usage/', { key: DEMO_KEY }),
      () => service.graphql(DEMO_KEY, '{ ledger(limit: 5) { entries { id } } }'),
    ];
    const statuses: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await untilNotRateLimited(service, sends[i % sends.length]);
      statuses.push(`${res.status}${res.body?.errors ? ' ' + res.body.errors[0].extensions.code : ''}`);
    }
    expect(statuses).toEqual(Array(10).fill('200'));

    const rest = await untilNotRateLimited(service, () =>
      service.request('/v2/credits/balance', { key: DEMO_KEY }),
    );
    expect(rest.status).toBe(429);
    expect(rest.body).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(rest.body.message).toMatch(/demo key allows 10 requests per day/i);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(rest.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);

    const gql = await untilNotRateLimited(service, () => service.graphql(DEMO_KEY, '{ account { plan } }'));
    expect(gql.body.errors[0].extensions.code).toBe('QUOTA_EXCEEDED');
    const usage = await untilNotRateLimited(service, () =>
      service.request('/lookup/v1/usage/', { key: DEMO_KEY }),
    );
    expect(usage.status).toBe(429);
  });

  it('reports the demo plan and is refused the business features at the service level', async () => {
    const principal = await service.running.services.auth.authenticate(DEMO_KEY);
    expect(principal).toMatchObject({ plan: 'demo', isDemo: true, keyId: 'demo' });
    const caller = { principal, requestId: 'r1', meter: { spent: 0, remaining: null } };
    const work = jest.fn(async () => 1);
    await expect(
      service.running.services.metering.run(
        caller,
        { feature: 'verify', minimumCost: 0, cost: () => 0, reason: 'verify' },
        work,
      ),
    ).rejects.toMatchObject({
      code: 'PLAN_REQUIRED',
      message: expect.stringMatching(/requires the business plan/),
    });
    expect(work).not.toHaveBeenCalled();
  });

  it('does not accept a near miss of the demo key', async () => {
    const res = await service.request('/v2/credits/balance/', { key: DEMO_KEY + 'x' });
    expect(res.status).toBe(403);
  });
});

describe('DEMO_DAILY_REQUESTS and an unset demo key', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ DEMO_API_KEY: DEMO_KEY, DEMO_DAILY_REQUESTS: '2' });
  });
  afterAll(() => service.stop());

  it('uses the configured daily allowance', async () => {
    const first = await service.request('/lookup/v1/usage', { key: DEMO_KEY });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      api: { throttle: { rateLimit: 1 }, quota: { limit: 2, period: 'DAY' } },
      plan: { name: 'demo', quota: { remaining: 1 } },
    });
    const second = await untilNotRateLimited(service, () =>
      service.request('/v2/credits/balance', { key: DEMO_KEY }),
    );
    expect(second.status).toBe(200);
    const third = await untilNotRateLimited(service, () =>
      service.request('/v2/credits/balance', { key: DEMO_KEY }),
    );
    expect(third.status).toBe(429);
    expect(third.body.message).toMatch(/demo key allows 2 requests per day/i);
  });

  it('is off when DEMO_API_KEY is unset', async () => {
    const plain = await startTestService();
    try {
      const res = await plain.request('/v2/credits/balance/', { key: DEMO_KEY });
      expect(res.status).toBe(403);
      const demoRows = await plain.running.services.db.query<unknown[]>(
        'SELECT id FROM accounts WHERE is_demo = ?',
        [true],
      );
      expect(demoRows).toHaveLength(0);
    } finally {
      await plain.stop();
    }
  });
});
