import { QuotaError } from '../../../src/errors';
import { PLANS } from '../../../src/plans/plan-catalog';
import { MeteringRepository } from '../../../src/storage/metering.repository';
import type { Caller } from '../../../src/services/platform/caller';
import { QuotaClock } from '../../../src/services/platform/quota-clock';
import { QuotaService } from '../../../src/services/platform/quota.service';
import { UsageMeter } from '../../../src/services/platform/usage-meter';
import { callerFor } from '../../helpers/test-caller';
import { startTestService, TestService } from '../../helpers/test-service';

describe('usage and quotas', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it.each([
    ['/lookup/v1/usage', 'small', 1],
    ['/lookup/v1/usage/', 'medium', 10],
    ['/v2/subdomains/usage', 'small', 5],
    ['/v2/subdomains/usage/', 'business', 5],
    ['/crawl/v2/usage/', 'large', 1],
  ])('GET %s returns the documented usage object (%s plan)', async (path, plan, rateLimit) => {
    const { apiKey } = await service.createAccount({ plan });
    const res = await service.request(path, { key: apiKey });
    expect(res.status).toBe(200);
    const limit = PLANS[plan as keyof typeof PLANS].quota.limit;
    expect(res.body).toEqual({
      api: { throttle: { rateLimit }, quota: { limit, period: 'MONTH' } },
      plan: { name: plan, quota: { remaining: limit - 1 } },
    });
  });

  it.each(['/nothing/v1/usage', '/nothing/v1/usage/'])(
    'GET %s answers 404: no usage for a resource the service does not serve',
    async (path) => {
      const { apiKey } = await service.createAccount({ plan: 'business' });
      const res = await service.request(path, { key: apiKey });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    },
  );

  it('has usage paths for the resources it serves, lead lists, Lookup v2 and datasets included', async () => {
    const { apiKey } = await service.createAccount({ plan: 'business' });
    for (const path of ['/v2/lists/usage', '/v2/lookup/usage/', '/dataset/v1/usage/']) {
      const res = await service.request(path, { key: apiKey });
      expect(res.status).toBe(200);
      expect(res.body.plan.name).toBe('business');
    }
  });

  it('counts usage requests and every other request toward the quota', async () => {
    const { apiKey } = await service.createAccount({ plan: 'small' });
    const first = await service.request('/lookup/v1/usage', { key: apiKey });
    const second = await service.request('/live/v2/usage/', { key: apiKey });
    expect(second.body.plan.quota.remaining).toBe(first.body.plan.quota.remaining - 1);
    await service.request('/v2/credits/balance/', { key: apiKey });
    await service.graphql(apiKey, '{ account { id } }');
    const third = await service.request('/analyze/v1/usage/', { key: apiKey });
    expect(third.body.plan.quota.remaining).toBe(second.body.plan.quota.remaining - 3);
  });

  it('answers the usage query over GraphQL with the family asked for', async () => {
    const { apiKey } = await service.createAccount({ plan: 'medium' });
    const res = await service.graphql(
      apiKey,
      '{ usage(family: CRAWL_V1) { api { throttle { rateLimit } } plan { name } } }',
    );
    expect(res.body.data.usage).toEqual({ api: { throttle: { rateLimit: 10 } }, plan: { name: 'medium' } });
  });

  it('answers 429 with Retry-After when a paid plan quota is used up', async () => {
    const { accountId, apiKey } = await service.createAccount({ plan: 'small' });
    const limit = PLANS.small.quota.limit;
    // Bring the counter of the current month to one below the limit, as if the month had been busy.
    const period = `M${new Date().toISOString().slice(0, 7)}`;
    await service.running.services.db.query(
      'INSERT INTO usage_counters (account_id, period, count) VALUES (?, ?, ?)',
      [accountId, period, limit - 1],
    );
    const last = await service.request('/lookup/v1/usage', { key: apiKey });
    expect(last.status).toBe(200);
    expect(last.body.plan.quota.remaining).toBe(0);
    const refused = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(refused.body.message).toMatch(/quota exceeded.*small plan quota of 50000 requests per month/i);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  describe('the usage meter and QuotaService with a fake clock', () => {
    let now: Date;
    let quota: QuotaService & { count(caller: Caller): Promise<number> };

    beforeEach(() => {
      now = new Date('2031-01-31T23:59:58Z');
      const { db, plans, events } = service.running.services;
      const clock = new QuotaClock(() => now);
      const storage = MeteringRepository.of(db);
      const meter = new UsageMeter(storage, plans, clock, events, () => undefined);
      quota = Object.assign(new QuotaService(storage, plans, clock), {
        count: (caller: Caller) => meter.settle({ caller, count: true, charge: 0, reason: 'test' }),
      });
    });

    it('stops at the plan limit, tells when it resets, and starts again next period', async () => {
      const { accountId, apiKey } = await service.createAccount({ plan: 'small' });
      const caller = await callerFor(service.running.services, apiKey);
      const limit = PLANS.small.quota.limit;
      await service.running.services.db.query(
        'INSERT INTO usage_counters (account_id, period, count) VALUES (?, ?, ?)',
        [accountId, 'M2031-01', limit - 2],
      );
      await quota.count(caller);
      await quota.count(caller);
      const refused = quota.count(caller);
      await expect(refused).rejects.toBeInstanceOf(QuotaError);
      await expect(refused).rejects.toMatchObject({ retryAfterSeconds: 2 });
      expect((await quota.usage(caller.principal, 'lookup')).plan.quota.remaining).toBe(0);

      now = new Date('2031-02-01T00:00:01Z');
      await quota.count(caller);
      expect((await quota.usage(caller.principal, 'lookup')).plan.quota.remaining).toBe(limit - 1);
    });

    it('never counts past the limit under concurrency', async () => {
      const { accountId, apiKey } = await service.createAccount({ plan: 'small' });
      const caller = await callerFor(service.running.services, apiKey);
      const limit = PLANS.small.quota.limit;
      await service.running.services.db.query(
        'INSERT INTO usage_counters (account_id, period, count) VALUES (?, ?, ?)',
        [accountId, 'M2031-01', limit - 5],
      );
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => quota.count(caller)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
      const rows = await service.running.services.db.query<{ count: number }[]>(
        'SELECT count FROM usage_counters WHERE account_id = ? AND period = ?',
        [accountId, 'M2031-01'],
      );
      expect(Number(rows[0].count)).toBe(limit);
    });

    it('counts the first requests of a new period concurrently without losing any', async () => {
      const { apiKey } = await service.createAccount({ plan: 'small' });
      const caller = await callerFor(service.running.services, apiKey);
      await Promise.all(Array.from({ length: 20 }, () => quota.count(caller)));
      expect((await quota.usage(caller.principal, 'lookup')).plan.quota.remaining).toBe(
        PLANS.small.quota.limit - 20,
      );
    });
  });
});
