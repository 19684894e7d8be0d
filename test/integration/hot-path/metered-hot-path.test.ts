import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DetectedTechnology } from '../../../src/detection/detection-result';
import { cleanEnv, distEntry, freePort, spawnNode } from '../../helpers/test-process';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * The metered hot path (issue 16): stored lookups served from the key cache, the stored-history
 * cache and the usage meter's group commit, with every guarantee of the metering kept: exact
 * quotas and balances under concurrency, one ledger row per charge, revocation refused at once in
 * another service process on the same database, plans from PLANS_FILE.
 */
const PLANS = `
plans:
  roomy:
    extends: large
    rateLimits:
      "*": { max: 10000, windowSeconds: 1 }
  tight:
    extends: large
    quota: { limit: 12, period: DAY }
    rateLimits:
      "*": { max: 10000, windowSeconds: 1 }
  inhouse:
    extends: business
    metered: false
    quota: null
    rateLimits:
      lookup: { max: 3, windowSeconds: 60 }
`;

const SITE = 'https://www.stored-shop.example/';

async function storeSite(service: TestService, url = SITE, count = 15): Promise<void> {
  const catalogue = service.running.services.engine.fingerprints.technologies;
  const technologies: DetectedTechnology[] = catalogue.slice(0, count).map((tech) => ({
    name: tech.name,
    slug: tech.slug,
    categories: tech.categories.map(({ id, slug, name, priority }) => ({ id, slug, name, priority })),
    versions: [],
    version: '',
    confidence: 100,
    icon: tech.icon,
    website: tech.website,
    implied: false,
    evidence: [],
  }));
  await service.running.services.siteIndex.record({
    url,
    pages: [{ url, isRoot: true, technologies, languages: ['en'], title: 'Stored shop' }],
    technologies,
    hostnames: [],
    at: new Date(),
  });
}

const lookup = (service: TestService, key: string, url = SITE) =>
  service.request(`/lookup/v1/?url=${encodeURIComponent(url)}`, { key });

describe('the metered hot path', () => {
  let service: TestService;
  let plansFile: string;

  beforeAll(async () => {
    plansFile = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.yaml');
    writeFileSync(plansFile, PLANS);
    service = await startTestService({ PLANS_FILE: plansFile, KEY_CACHE_SECONDS: '300' });
    await storeSite(service);
  });
  afterAll(() => service.stop());

  it('charges concurrent stored lookups exactly while credits last: never below zero, one ledger row each', async () => {
    const { accountId, apiKey } = await service.createAccount({ plan: 'roomy', credits: 20 });
    const answers = await Promise.all(Array.from({ length: 50 }, () => lookup(service, apiKey)));
    const ok = answers.filter((res) => res.status === 200);
    expect(ok).toHaveLength(20);
    expect(
      answers.filter((res) => res.status === 403).every((res) => /credits/i.test(res.body.message)),
    ).toBe(true);
    expect(answers.filter((res) => res.status !== 200 && res.status !== 403)).toEqual([]);
    expect(await service.running.services.credits.balance(accountId)).toBe(0);
    const rows = await service.running.services.db.query<
      { delta: number; balance_after: number; request_id: string }[]
    >(
      "SELECT delta, balance_after, request_id FROM credit_ledger WHERE account_id = ? AND kind = 'charge' ORDER BY id",
      [accountId],
    );
    expect(rows.map((r) => Number(r.delta))).toEqual(Array(20).fill(-1));
    // Each charge's balance after it, 19 down to 0, and each row names its request.
    expect(rows.map((r) => Number(r.balance_after)).sort((a, b) => b - a)).toEqual(
      Array.from({ length: 20 }, (_, i) => 19 - i),
    );
    const remaining = ok
      .map((res) => Number(res.headers.get('service-credits-remaining')))
      .sort((a, b) => b - a);
    expect(remaining).toEqual(rows.map((r) => Number(r.balance_after)).sort((a, b) => b - a));
    expect(new Set(rows.map((r) => r.request_id))).toEqual(
      new Set(ok.map((res) => res.headers.get('x-request-id'))),
    );
  });

  it('settles several accounts in one batch, each exactly: a short one refused, the others all charged', async () => {
    const accounts = await Promise.all(
      [3, 100, 7, 100].map((credits) => service.createAccount({ plan: 'roomy', credits })),
    );
    // Interleaved, so the requests of every account share the meter's batches.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const account = accounts[i % accounts.length];
        return lookup(service, account.apiKey).then((res) => ({ account, status: res.status }));
      }),
    );
    const answered = (accountId: number) =>
      answers.filter((a) => a.account.accountId === accountId && a.status === 200).length;
    expect(accounts.map((a) => answered(a.accountId))).toEqual([3, 10, 7, 10]);
    expect(answers.every((a) => a.status === 200 || a.status === 403)).toBe(true);
    for (const [i, expected] of [0, 90, 0, 90].entries()) {
      const { accountId } = accounts[i];
      expect(await service.running.services.credits.balance(accountId)).toBe(expected);
      const rows = await service.running.services.db.query<{ balance_after: number }[]>(
        "SELECT balance_after FROM credit_ledger WHERE account_id = ? AND kind = 'charge'",
        [accountId],
      );
      const start = expected + answered(accountId);
      expect(rows.map((r) => Number(r.balance_after)).sort((a, b) => b - a)).toEqual(
        Array.from({ length: answered(accountId) }, (_, k) => start - 1 - k),
      );
    }
  });

  it('writes a batch that fits as one script (MariaDB: one round trip; SQLite: its own thread), its ledger in order; one that does not, exactly', async () => {
    const { meter } = service.running.services;
    const { accountId, apiKey } = await service.createAccount({ plan: 'roomy', credits: 100 });
    const short = await service.createAccount({ plan: 'roomy', credits: 3 });
    // The period's first requests create the accounts' quota counters (by the exact transaction).
    expect((await lookup(service, apiKey)).status).toBe(200);
    expect((await lookup(service, short.apiKey)).status).toBe(200);
    const before = { ...meter.trips };
    const answers = await Promise.all(Array.from({ length: 30 }, () => lookup(service, apiKey)));
    expect(answers.map((res) => res.status)).toEqual(Array(30).fill(200));
    expect(meter.trips.script).toBeGreaterThan(before.script);
    expect(meter.trips.exact).toBe(before.exact);
    expect(await service.running.services.credits.balance(accountId)).toBe(69);
    const rows = await service.running.services.db.query<{ balance_after: number; request_id: string }[]>(
      "SELECT balance_after, request_id FROM credit_ledger WHERE account_id = ? AND kind = 'charge' ORDER BY id",
      [accountId],
    );
    // In the order written, each charge's balance after it: 99 (the first request), then 98 … 69.
    expect(rows.map((r) => Number(r.balance_after))).toEqual(Array.from({ length: 31 }, (_, i) => 99 - i));
    const headers = answers.map((res) => Number(res.headers.get('service-credits-remaining')));
    const byRequest = new Map(rows.map((r) => [r.request_id, Number(r.balance_after)]));
    expect(headers).toEqual(answers.map((res) => byRequest.get(res.headers.get('x-request-id')!)));

    // Balances that do not cover a batch: the script stops (its debit's expectation), the exact transaction refuses exactly the requests the
    // balance cannot pay, and nothing of the stopped script remains.
    const mixed = await Promise.all(
      Array.from({ length: 10 }, (_, i) => lookup(service, i % 2 === 0 ? short.apiKey : apiKey)),
    );
    expect(mixed.filter((res, i) => i % 2 === 0 && res.status === 200)).toHaveLength(2);
    expect(mixed.filter((res, i) => i % 2 === 1 && res.status === 200)).toHaveLength(5);
    expect(meter.trips.exact).toBeGreaterThan(before.exact);
    expect(await service.running.services.credits.balance(short.accountId)).toBe(0);
    expect(await service.running.services.credits.balance(accountId)).toBe(64);
    const [{ n }] = await service.running.services.db.query<{ n: number | string }[]>(
      "SELECT COUNT(*) AS n FROM credit_ledger WHERE account_id IN (?, ?) AND kind = 'charge'",
      [accountId, short.accountId],
    );
    expect(Number(n)).toBe(31 + 5 + 3);
  });

  it('counts the quotas of several accounts in one batch exactly, new and existing counters alike', async () => {
    const accounts = await Promise.all(
      [1, 2, 3].map(() => service.createAccount({ plan: 'tight', credits: 1000 })),
    );
    // The first account's counter exists before the burst (5 used); the others start the period.
    for (let i = 0; i < 5; i++) expect((await lookup(service, accounts[0].apiKey)).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const account = accounts[i % accounts.length];
        return lookup(service, account.apiKey).then((res) => ({ account, status: res.status }));
      }),
    );
    const answered = (accountId: number) =>
      answers.filter((a) => a.account.accountId === accountId && a.status === 200).length;
    expect(accounts.map((a) => answered(a.accountId))).toEqual([7, 12, 12]);
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true);
    for (const { accountId } of accounts) {
      const [counter] = await service.running.services.db.query<{ count: number }[]>(
        'SELECT count FROM usage_counters WHERE account_id = ?',
        [accountId],
      );
      expect(Number(counter.count)).toBe(12);
      expect(await service.running.services.credits.balance(accountId)).toBe(1000 - 12);
    }
  });

  it('counts a quota exactly at its boundary under concurrency (a PLANS_FILE plan of 12 a day)', async () => {
    const { accountId, apiKey } = await service.createAccount({ plan: 'tight', credits: 1000 });
    const answers = await Promise.all(Array.from({ length: 30 }, () => lookup(service, apiKey)));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(12);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused).toHaveLength(18);
    expect(refused[0].body.message).toMatch(/quota of 12 requests per day/);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused requests are neither counted past the limit nor charged.
    const [counter] = await service.running.services.db.query<{ count: number }[]>(
      'SELECT count FROM usage_counters WHERE account_id = ?',
      [accountId],
    );
    expect(Number(counter.count)).toBe(12);
    expect(await service.running.services.credits.balance(accountId)).toBe(1000 - 12);
    // Known to be used up: the next one is refused before any work, the same way.
    expect((await lookup(service, apiKey)).status).toBe(429);
  });

  it('does not charge a plan that is not metered, and applies its own rate limit', async () => {
    const { accountId, apiKey } = await service.createAccount({ plan: 'inhouse', credits: 5 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await lookup(service, apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await service.running.services.credits.balance(accountId)).toBe(5);
    const rows = await service.running.services.db.query<unknown[]>(
      "SELECT id FROM credit_ledger WHERE account_id = ? AND kind = 'charge'",
      [accountId],
    );
    expect(rows).toHaveLength(0);
    const usage = await service.request('/lookup/v1/usage', { key: apiKey });
    expect(usage.body).toMatchObject({ plan: { name: 'inhouse' } });
  });

  it('answers a re-analysed site with its new history at once (the cached history is checked against the site)', async () => {
    const url = 'https://www.changing-shop.example/';
    await storeSite(service, url);
    const { apiKey } = await service.createAccount({ plan: 'large', credits: 100 });
    const before = await lookup(service, apiKey, url);
    expect(before.status).toBe(200);
    const first = before.body[before.body.length - 1].applications[0];
    expect(first.hits).toBe(1);
    await storeSite(service, url);
    const after = await lookup(service, apiKey, url);
    expect(after.body[after.body.length - 1].applications[0].hits).toBe(2);
  });

  it('answers a re-analysed site on /v2/lookup/ with its new technologies at once (the cached ones are checked against the site)', async () => {
    const url = 'https://www.growing-shop.example/';
    await storeSite(service, url, 3);
    const { apiKey } = await service.createAccount({ plan: 'large', credits: 100 });
    const v2 = () => service.request(`/v2/lookup/?urls=${encodeURIComponent(url)}`, { key: apiKey });
    const before = await v2();
    expect(before.status).toBe(200);
    const slugs = (res: typeof before) =>
      (res.body[0].technologies as { slug: string }[]).map((t) => t.slug).sort();
    const catalogue = service.running.services.engine.fingerprints.technologies;
    expect(slugs(before)).toEqual(
      catalogue
        .slice(0, 3)
        .map((t) => t.slug)
        .sort(),
    );
    // Asked again unchanged: the same answer (from memory).
    expect(slugs(await v2())).toEqual(slugs(before));
    await storeSite(service, url, 5);
    expect(slugs(await v2())).toEqual(
      catalogue
        .slice(0, 5)
        .map((t) => t.slug)
        .sort(),
    );
  });

  it('refuses a key revoked by another process (the admin CLI) at once, although this process has it cached', async () => {
    const { apiKey } = await service.createAccount({ plan: 'roomy', credits: 100 });
    expect((await lookup(service, apiKey)).status).toBe(200);
    // Revoked by another process: nothing reaches this one's key cache but the database.
    const cli = spawnNode(
      distEntry('src/admin/cli.js'),
      ['key:revoke', '--api-key', apiKey],
      cleanEnv({ DATABASE_URL: service.running.services.config.DATABASE_URL, LOG_LEVEL: 'warn' }),
    );
    const exit = await cli.exited;
    expect({ code: exit.code, stderr: cli.stderr(), stdout: cli.stdout() }).toMatchObject({ code: 0 });
    const refused = await lookup(service, apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/revoked/);
    // And from then on refused before any work: the key left the cache.
    expect((await lookup(service, apiKey)).body.message).toMatch(/revoked/);
  });

  it('keeps a balance from going negative when two API processes charge one account', async () => {
    const port = await freePort();
    const api = spawnNode(
      distEntry('src/main.js'),
      [],
      cleanEnv({
        DATABASE_URL: service.running.services.config.DATABASE_URL,
        PLANS_FILE: plansFile,
        PORT: String(port),
        HOST: '127.0.0.1',
        EMBEDDED_WORKER: 'false',
        LOG_LEVEL: 'info',
      }),
    );
    try {
      await api.waitForLine(/HTTP server listening/);
      const { accountId, apiKey } = await service.createAccount({ plan: 'roomy', credits: 15 });
      const viaOther = async () => {
        const res = await fetch(`http://127.0.0.1:${port}/lookup/v1/?url=${encodeURIComponent(SITE)}`, {
          headers: { 'x-api-key': apiKey },
        });
        return { status: res.status };
      };
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? lookup(service, apiKey) : viaOther())),
      );
      expect(answers.filter((res) => res.status === 200)).toHaveLength(15);
      expect(answers.filter((res) => res.status !== 200 && res.status !== 403)).toEqual([]);
      expect(await service.running.services.credits.balance(accountId)).toBe(0);
      const [sum] = await service.running.services.db.query<{ total: number; n: number }[]>(
        "SELECT SUM(delta) AS total, COUNT(*) AS n FROM credit_ledger WHERE account_id = ? AND kind = 'charge'",
        [accountId],
      );
      expect(Number(sum.total)).toBe(-15);
      expect(Number(sum.n)).toBe(15);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });
});
