import { InsufficientCreditsError, httpStatusOf } from '../../../src/errors';
import { callerFor } from '../../helpers/test-caller';
import { startTestService, TestService } from '../../helpers/test-service';

const LEDGER = `query Ledger($limit: Int, $before: Int) {
  ledger(limit: $limit, before: $before) { entries { id delta balanceAfter kind reason requestId createdAt } nextBefore }
}`;

async function ledgerRows(service: TestService, accountId: number) {
  return service.running.services.db.query<{ delta: number; balance_after: number; kind: string }[]>(
    'SELECT delta, balance_after, kind FROM credit_ledger WHERE account_id = ? ORDER BY id',
    [accountId],
  );
}

describe('credits', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  describe('GET /v2/credits/balance/', () => {
    it.each(['/v2/credits/balance/', '/v2/credits/balance'])(
      '%s returns {credits} with the credit headers',
      async (path) => {
        const { apiKey } = await service.createAccount({ credits: 42 });
        const res = await service.request(path, { key: apiKey });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ credits: 42 });
        expect(res.headers.get('service-credits-spent')).toBe('0');
        expect(res.headers.get('service-credits-remaining')).toBe('42');
      },
    );

    it('puts the credit headers on usage and GraphQL successes too', async () => {
      const { apiKey } = await service.createAccount({ credits: 9 });
      const usage = await service.request('/lookup/v1/usage', { key: apiKey });
      expect(usage.status).toBe(200);
      expect(usage.headers.get('service-credits-spent')).toBe('0');
      expect(usage.headers.get('service-credits-remaining')).toBe('9');
      const gql = await service.graphql(apiKey, '{ creditBalance { credits } }');
      expect(gql.body).toEqual({ data: { creditBalance: { credits: 9 } } });
      expect(gql.headers.get('service-credits-spent')).toBe('0');
      expect(gql.headers.get('service-credits-remaining')).toBe('9');
    });

    it('leaves the credit headers off failures', async () => {
      const res = await service.request('/v2/credits/balance/', { key: 'tis_not-a-real-key' });
      expect(res.status).toBe(403);
      expect(res.headers.get('service-credits-spent')).toBeNull();
      expect(res.headers.get('service-credits-remaining')).toBeNull();
    });
  });

  describe('ledger over GraphQL', () => {
    it('lists every movement newest first, with balances after, and pages with before', async () => {
      const { accountId, apiKey } = await service.createAccount({ credits: 10 });
      const { credits, metering } = service.running.services;
      await credits.grant(accountId, 5, 'top-up');
      const caller = await callerFor(service.running.services, apiKey);
      await metering.run(
        caller,
        { minimumCost: 3, cost: () => 3, reason: 'GET /analyze/v1/' },
        async () => 'ok',
      );

      const res = await service.graphql(apiKey, LEDGER, { limit: 10 });
      expect(res.status).toBe(200);
      const entries = res.body.data.ledger.entries;
      expect(entries.map((e: { delta: number }) => e.delta)).toEqual([-3, 5, 10]);
      expect(entries.map((e: { balanceAfter: number }) => e.balanceAfter)).toEqual([12, 15, 10]);
      expect(entries.map((e: { kind: string }) => e.kind)).toEqual(['charge', 'grant', 'grant']);
      expect(entries[0]).toMatchObject({ reason: 'GET /analyze/v1/', requestId: caller.requestId });
      expect(entries[0].createdAt).toBeLessThan(10_000_000_000); // UNIX seconds, not milliseconds
      expect(res.body.data.ledger.nextBefore).toBeNull();

      const first = await service.graphql(apiKey, LEDGER, { limit: 2 });
      expect(first.body.data.ledger.entries).toHaveLength(2);
      const before = first.body.data.ledger.nextBefore;
      expect(before).toBe(entries[1].id);
      const second = await service.graphql(apiKey, LEDGER, { limit: 2, before });
      expect(second.body.data.ledger.entries.map((e: { delta: number }) => e.delta)).toEqual([10]);
      expect(second.body.data.ledger.nextBefore).toBeNull();
    });

    it('shows only the caller’s own movements', async () => {
      const mine = await service.createAccount({ credits: 1 });
      await service.createAccount({ credits: 99 });
      const res = await service.graphql(mine.apiKey, LEDGER, { limit: 50 });
      expect(res.body.data.ledger.entries.map((e: { delta: number }) => e.delta)).toEqual([1]);
    });

    it('refuses a bad limit as BAD_REQUEST naming it', async () => {
      const { apiKey } = await service.createAccount();
      const res = await service.graphql(apiKey, LEDGER, { limit: 0 });
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'limit' });
    });
  });

  describe('metered charges', () => {
    it('never lets 50 concurrent charges push the balance below zero; the ledger explains the balance', async () => {
      const { accountId, apiKey } = await service.createAccount({ credits: 30 });
      const { metering, credits } = service.running.services;
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, async (_, i) => {
          const caller = await callerFor(service.running.services, apiKey);
          return metering.run(
            caller,
            { minimumCost: 1, cost: () => 1, reason: `concurrent ${i}` },
            async () => i,
          );
        }),
      );
      const ok = outcomes.filter((o) => o.status === 'fulfilled');
      const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      for (const failure of failed) expect(failure.reason).toBeInstanceOf(InsufficientCreditsError);
      expect(ok).toHaveLength(30);
      expect(await credits.balance(accountId)).toBe(0);

      const rows = await ledgerRows(service, accountId);
      const sum = rows.reduce((total, row) => total + Number(row.delta), 0);
      expect(sum).toBe(0); // +30 initial grant, 30 charges of -1
      const charges = rows.filter((row) => row.kind === 'charge');
      expect(charges).toHaveLength(30);
      for (const row of rows) expect(Number(row.balance_after)).toBeGreaterThanOrEqual(0);
      // Each charge saw a distinct balance: no two charges spent the same credit.
      expect(new Set(charges.map((row) => Number(row.balance_after))).size).toBe(30);
    });

    it('does not charge a call whose work throws', async () => {
      const { accountId, apiKey } = await service.createAccount({ credits: 5 });
      const caller = await callerFor(service.running.services, apiKey);
      const failure = new Error('target did not answer');
      await expect(
        service.running.services.metering.run(
          caller,
          { minimumCost: 2, cost: () => 2, reason: 'failing' },
          async () => {
            throw failure;
          },
        ),
      ).rejects.toBe(failure);
      expect(await service.running.services.credits.balance(accountId)).toBe(5);
      expect(caller.meter.spent).toBe(0);
      expect((await ledgerRows(service, accountId)).map((r) => Number(r.delta))).toEqual([5]);
    });

    it('refuses an unaffordable call before doing the work, with a clear 403 error', async () => {
      const { accountId, apiKey } = await service.createAccount({ credits: 2 });
      const caller = await callerFor(service.running.services, apiKey);
      const work = jest.fn(async () => 'done');
      const attempt = service.running.services.metering.run(
        caller,
        { minimumCost: 3, cost: () => 3, reason: 'too expensive' },
        work,
      );
      await expect(attempt).rejects.toBeInstanceOf(InsufficientCreditsError);
      await expect(attempt).rejects.toThrow(/insufficient credits.*costs 3.*balance is 2/i);
      expect(work).not.toHaveBeenCalled();
      expect(await service.running.services.credits.balance(accountId)).toBe(2);
      expect(httpStatusOf(new InsufficientCreditsError(3, 2).code)).toBe(403);
    });

    it('refuses a final cost above the balance without charging anything', async () => {
      const { accountId, apiKey } = await service.createAccount({ credits: 4 });
      const caller = await callerFor(service.running.services, apiKey);
      await expect(
        service.running.services.metering.run(
          caller,
          { minimumCost: 1, cost: () => 10, reason: 'grew' },
          async () => 1,
        ),
      ).rejects.toBeInstanceOf(InsufficientCreditsError);
      expect(await service.running.services.credits.balance(accountId)).toBe(4);
    });

    it('records what a call cost on the caller’s meter', async () => {
      const { apiKey } = await service.createAccount({ credits: 10 });
      const caller = await callerFor(service.running.services, apiKey);
      await service.running.services.metering.run(
        caller,
        { minimumCost: 1, cost: (n: number) => n, reason: 'per item' },
        async () => 4,
      );
      expect(caller.meter).toEqual({ spent: 4, remaining: 6 });
    });
  });
});

describe('credit headers with another HEADER_PREFIX', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ HEADER_PREFIX: 'acme' });
  });
  afterAll(() => service.stop());

  it('names the headers with the configured prefix', async () => {
    const { apiKey } = await service.createAccount({ credits: 3 });
    const res = await service.request('/v2/credits/balance/', { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('acme-credits-spent')).toBe('0');
    expect(res.headers.get('acme-credits-remaining')).toBe('3');
    expect(res.headers.get('service-credits-remaining')).toBeNull();
    const doc = await service.request('/openapi/v2-public.yaml');
    expect(doc.text).toContain('acme-credits-remaining');
    expect(doc.text).not.toContain('service-credits-remaining');
  });
});
