import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { HttpResult } from '../../helpers/test-service';
import { AnalysisKit, creditHeaders, q, startAnalysisKit } from './analysis-test-kit';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('credits and rate limits on the analysis endpoints', () => {
  let kit: AnalysisKit;

  beforeAll(async () => {
    // A generous fetch timeout: 50 analyses at once on a loaded machine must not time out.
    kit = await startAnalysisKit({ FETCH_TIMEOUT_MS: '15000' });
  });
  afterAll(() => kit.close());

  /** An account with `keys` API keys: rate limits are per key, so requests can be truly concurrent. */
  async function accountWithKeys(plan: string, credits: number, keys: number) {
    const created = await kit.service.createAccount({ plan, credits });
    const more = await Promise.all(
      Array.from({ length: keys - 1 }, () =>
        kit.service.running.services.accounts.createKey(created.accountId),
      ),
    );
    return { accountId: created.accountId, keys: [created.apiKey, ...more.map((k) => k.apiKey)] };
  }

  async function countAnalysisJobs(): Promise<number> {
    const rows = await kit.service.running.services.db.query<{ n: number }[]>(
      "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'analysis.run'",
    );
    return Number(rows[0].n);
  }

  /** The ledger row a response's request made, matched by x-request-id. */
  async function ledgerRowOf(res: HttpResult) {
    const rows = await kit.service.running.services.db.query<{ delta: number; balance_after: number }[]>(
      'SELECT delta, balance_after FROM credit_ledger WHERE request_id = ?',
      [res.headers.get('x-request-id')],
    );
    return rows;
  }

  it('puts service-credits-spent/-remaining on each analysis endpoint, matching the ledger', async () => {
    const { accountId, keys } = await accountWithKeys('medium', 100, 1);
    const [key] = keys;
    const receiver = await kit.receiverFor(accountId);
    const page = kit.sites.url('/about/');
    const calls: [string, number][] = [
      [`/analyze/v1/?${q({ url: page })}`, 1],
      [`/live/v2/?${q({ urls: page, recursive: 'false' })}`, 1],
      [`/crawl/v2/?${q({ urls: page, recursive: 'false' })}`, 1],
      [`/live/v2/?${q({ urls: page, callback_url: receiver.url })}`, 5],
      [`/crawl/v1/?${q({ url: page, callback_url: receiver.url })}`, 5],
      [`/lookup/v1/?${q({ url: page })}`, 1],
    ];
    for (const [path, price] of calls) {
      const res = await kit.getPatiently(path, key);
      expect([200, 202]).toContain(res.status);
      const [row] = await ledgerRowOf(res);
      expect(creditHeaders(res)).toEqual({ spent: price, remaining: row.balance_after });
      expect(row.delta).toBe(-price);
    }
    await receiver.waitFor(2, 30_000);
    await kit.jobsSettled();
    expect(await kit.balance(accountId)).toBe(100 - 14);
  });

  it('never lets 50 concurrent analyze requests overdraw an account of 10 credits', async () => {
    const { accountId, keys } = await accountWithKeys('large', 10, 5);
    const url = kit.sites.url('/contact/');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => kit.get(`/analyze/v1/?${q({ url })}`, keys[i % keys.length])),
    );
    const charged = results.filter((r) => r.status === 200 && r.body.status === 'success');
    const refused = results.filter((r) => r.status === 403);
    expect(results.filter((r) => r.status !== 200 && r.status !== 403)).toEqual([]);
    expect(refused.length).toBeGreaterThan(0);
    // Refusals happen only once the credits are gone: exactly ten analyses were paid for.
    expect(charged.length).toBe(10);
    for (const res of refused) expect(res.body.code).toBe('INSUFFICIENT_CREDITS');
    for (const res of charged) expect(creditHeaders(res).spent).toBe(1);
    expect(await kit.balance(accountId)).toBe(0);
    const ledger = await kit.ledger(accountId);
    expect(ledger.filter((row) => row.kind === 'charge')).toHaveLength(10);
    expect(ledger.every((row) => row.balance_after >= 0)).toBe(true);
    expect(ledger.reduce((sum, row) => sum + row.delta, 0)).toBe(0);
  });

  it('accepts concurrent crawls only as far as the credits go: no unpaid job, callback or refund', async () => {
    // 20 Crawl v1 requests of 5 credits each at once on 10 credits. A dead site fails fast and is
    // refunded, so a later request may be paid with refunded credits; but every accepted crawl is
    // charged, and only accepted crawls run, call back and are refunded.
    const { accountId, keys } = await accountWithKeys('medium', 10, 4);
    const receiver = await kit.receiverFor(accountId);
    const dead = kit.sites.url('/error');
    const jobsBefore = await countAnalysisJobs();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        kit.get(`/crawl/v1/?${q({ url: dead, callback_url: receiver.url })}`, keys[i % keys.length]),
      ),
    );
    const accepted = results.filter((r) => r.status === 202);
    expect(results.some((r) => r.status === 429)).toBe(false);
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    expect(results.filter((r) => r.status === 403)).toHaveLength(20 - accepted.length);
    await kit.jobsSettled();
    expect((await countAnalysisJobs()) - jobsBefore).toBe(accepted.length);
    await receiver.waitFor(accepted.length, 30_000);
    expect(receiver.received).toHaveLength(accepted.length);
    const ledger = await kit.ledger(accountId);
    expect(ledger.filter((row) => row.kind === 'charge')).toHaveLength(accepted.length);
    expect(ledger.filter((row) => row.kind === 'refund')).toHaveLength(accepted.length);
    expect(ledger.every((row) => row.balance_after >= 0)).toBe(true);
    expect(await kit.balance(accountId)).toBe(10);
  });

  it('limits analyze to 1 request/s on the small plan (429 with Retry-After)', async () => {
    const { keys } = await accountWithKeys('small', 10, 1);
    const url = `http://127.0.0.1:${await closedPort()}/`;
    // The five fall in one instant of the limits' clock, however long they take to answer.
    kit.service.clock.freeze();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => kit.service.request(`/analyze/v1/?${q({ url })}`, { key: keys[0] })),
    ).finally(() => kit.service.clock.resume());
    const limited = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(limited).toHaveLength(4);
    for (const res of limited) {
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body.code).toBe('RATE_LIMITED');
    }
  });

  it('lets a medium plan make 10 analyze requests at once', async () => {
    const { keys } = await accountWithKeys('medium', 10, 1);
    const url = `http://127.0.0.1:${await closedPort()}/`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => kit.service.request(`/analyze/v1/?${q({ url })}`, { key: keys[0] })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.every((r) => r.body.status === 'error')).toBe(true);
  });
});
