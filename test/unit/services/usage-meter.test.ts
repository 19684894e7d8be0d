import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthError, InsufficientCreditsError, QuotaError } from '../../../src/errors';
import { EventBus } from '../../../src/platform/event-bus';
import { PLANS, PlanCatalog } from '../../../src/plans/plan-catalog';
import { newMeter, type Caller } from '../../../src/services/platform/caller';
import { CreditService } from '../../../src/services/platform/credit.service';
import { MeteringService } from '../../../src/services/platform/metering.service';
import { QuotaClock } from '../../../src/services/platform/quota-clock';
import { UsageMeter } from '../../../src/services/platform/usage-meter';
import { Database } from '../../../src/storage/database';
import { AccountEntity, ApiKeyEntity } from '../../../src/storage/entities';
import { MeteringRepository } from '../../../src/storage/metering.repository';
import { SqliteScript } from '../../../src/storage/sqlite-script';

/**
 * The usage meter's rules, against the real storage layer on a temporary SQLite file (no HTTP):
 * whichever way a batch is written (the script on SQLite's thread, falling back to the exact
 * transaction, or the exact transaction alone), a balance never goes negative, each charge has one
 * ledger row, a quota is exact at its boundary, a refused request writes nothing, and a revoked key
 * is refused at once.
 */
const plans = new PlanCatalog({
  ...PLANS,
  roomy: { ...PLANS.small, name: 'roomy', quota: { limit: 1_000_000, period: 'MONTH' } },
  tight: { ...PLANS.small, name: 'tight', quota: { limit: 10, period: 'MONTH' } },
  unmetered: { ...PLANS.small, name: 'unmetered', metered: false },
});
const NOW = new Date('2031-03-15T12:00:00Z');
const PERIOD = 'M2031-03';

/** n turns of the event loop: settlements started after it join a later batch. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** Each promise's value or error, in order. */
const outcomes = <T>(promises: Promise<T>[]) =>
  Promise.all(
    promises.map((p) =>
      p.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    ),
  );

describe.each([
  ['the script on its thread, then the exact transaction', true],
  ['the exact transaction alone', false],
])('the usage meter: %s', (_label, withScript) => {
  let dir: string;
  let db: Database;
  let storage: MeteringRepository;
  let meter: UsageMeter;
  let revoked: { keyId: number; accountId: number }[];
  let requestCounter = 0;

  const meterOf = () =>
    new UsageMeter(
      storage,
      plans,
      new QuotaClock(() => NOW),
      new EventBus(),
      (event) => revoked.push(event),
      withScript ? SqliteScript.of(db) : null,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'usage-meter-'));
    db = await Database.open(`sqlite:${join(dir, 'meter.db')}`);
    storage = MeteringRepository.of(db);
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    revoked = [];
    meter = meterOf();
  });

  async function account(plan: string, credits: number): Promise<{ accountId: number; keyId: number }> {
    const { identifiers } = await db.manager.insert(AccountEntity, {
      name: 'Test',
      email: `t${++requestCounter}@example.com`,
      plan,
      credits,
      isDemo: false,
      createdAt: new Date(),
    });
    const accountId = Number(identifiers[0].id);
    const key = await db.manager.insert(ApiKeyEntity, {
      accountId,
      keyHash: `hash-${accountId}-${requestCounter}`.padEnd(64, '0'),
      keyPrefix: 'test',
      createdAt: new Date(),
      revokedAt: null,
    });
    return { accountId, keyId: Number(key.identifiers[0].id) };
  }

  const callerOf = (who: { accountId: number; keyId: number }, plan: string): Caller => ({
    principal: { accountId: who.accountId, keyId: who.keyId, plan, isDemo: false },
    requestId: `req-${++requestCounter}`,
    meter: newMeter(),
  });

  const balance = async (accountId: number) =>
    Number(
      ((await db.query('SELECT credits FROM accounts WHERE id = ?', [accountId])) as { credits: number }[])[0]
        .credits,
    );
  const ledger = async (accountId: number) =>
    (
      (await db.query(
        "SELECT delta, balance_after, request_id FROM credit_ledger WHERE account_id = ? AND kind = 'charge' ORDER BY id",
        [accountId],
      )) as { delta: number; balance_after: number; request_id: string }[]
    ).map((row) => ({
      delta: Number(row.delta),
      balanceAfter: Number(row.balance_after),
      requestId: row.request_id,
    }));
  const counter = async (accountId: number) => storage.countOf(accountId, PERIOD);

  it('charges concurrent requests on a small balance while it lasts: never below zero, one ledger row each', async () => {
    const who = await account('roomy', 7);
    const callers = Array.from({ length: 30 }, () => callerOf(who, 'roomy'));
    // Spread over several turns, so that several batches (two in flight on the thread) meet the balance.
    const results = await outcomes(
      callers.map((caller, i) =>
        turns(i % 3).then(() => meter.settle({ caller, count: true, charge: 1, reason: 'GET /lookup/v1/' })),
      ),
    );
    const paid = results.flatMap((r, i) =>
      'value' in r ? [{ caller: callers[i], remaining: r.value }] : [],
    );
    expect(paid).toHaveLength(7);
    const refused = results.flatMap((r) => ('error' in r ? [r.error] : []));
    expect(refused).toHaveLength(23);
    expect(refused.every((error) => error instanceof InsufficientCreditsError)).toBe(true);
    expect(await balance(who.accountId)).toBe(0);
    const rows = await ledger(who.accountId);
    expect(rows.map((row) => row.delta)).toEqual(Array(7).fill(-1));
    expect(rows.map((row) => row.balanceAfter)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    // One row per paid request, naming it, with the balance its settlement resolved with.
    expect(new Map(rows.map((row) => [row.requestId, row.balanceAfter]))).toEqual(
      new Map(paid.map(({ caller, remaining }) => [caller.requestId, remaining])),
    );
    expect(paid.every(({ caller }) => caller.meter.spent === 1)).toBe(true);
  });

  it('pays larger charges in arrival order while the balance covers them, and refuses the rest without writing', async () => {
    const who = await account('roomy', 5);
    const charges = [2, 2, 2, 1];
    const results = await outcomes(
      charges.map((charge) =>
        meter.settle({ caller: callerOf(who, 'roomy'), count: true, charge, reason: 'test' }),
      ),
    );
    // 2 and 2 paid (1 left), the third 2 refused, the 1 still paid from what is left.
    expect(results.map((r) => ('value' in r ? r.value : 'refused'))).toEqual([3, 1, 'refused', 0]);
    expect(await balance(who.accountId)).toBe(0);
    expect((await ledger(who.accountId)).map((row) => row.delta)).toEqual([-2, -2, -1]);
  });

  it('two meters (as two processes) on one balance: together never below zero, one ledger row per charge', async () => {
    const who = await account('roomy', 10);
    const other = meterOf();
    const results = await outcomes(
      Array.from({ length: 40 }, (_, i) =>
        turns(i % 4).then(() =>
          (i % 2 === 0 ? meter : other).settle({
            caller: callerOf(who, 'roomy'),
            count: true,
            charge: 1,
            reason: 'test',
          }),
        ),
      ),
    );
    expect(results.filter((r) => 'value' in r)).toHaveLength(10);
    expect(await balance(who.accountId)).toBe(0);
    const rows = await ledger(who.accountId);
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((row) => row.balanceAfter))).toEqual(new Set([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]));
  });

  it('counts a quota exactly to its boundary under concurrency, and refuses the rest with 429 until the period ends', async () => {
    const who = await account('tight', 1000);
    // The period's counter exists with 7 of 10 used.
    for (let i = 0; i < 7; i++)
      await meter.settle({ caller: callerOf(who, 'tight'), count: true, charge: 0, reason: 'test' });
    const results = await outcomes(
      Array.from({ length: 12 }, (_, i) =>
        turns(i % 3).then(() =>
          meter.settle({ caller: callerOf(who, 'tight'), count: true, charge: 1, reason: 'test' }),
        ),
      ),
    );
    expect(results.filter((r) => 'value' in r)).toHaveLength(3);
    const refused = results.flatMap((r) => ('error' in r ? [r.error] : []));
    expect(refused).toHaveLength(9);
    expect(refused.every((error) => error instanceof QuotaError)).toBe(true);
    expect(await counter(who.accountId)).toBe(10);
    // Only the counted requests were charged.
    expect(await balance(who.accountId)).toBe(997);
    expect(await ledger(who.accountId)).toHaveLength(3);
    expect(() => meter.refuseIfExhausted(callerOf(who, 'tight'))).toThrow(QuotaError);
  });

  it("starts a period's counter exactly: a first burst larger than the quota counts the quota", async () => {
    const who = await account('tight', 0);
    const results = await outcomes(
      Array.from({ length: 15 }, () =>
        meter.settle({ caller: callerOf(who, 'tight'), count: true, charge: 0, reason: 'test' }),
      ),
    );
    expect(results.filter((r) => 'value' in r)).toHaveLength(10);
    expect(await counter(who.accountId)).toBe(10);
  });

  it('refuses the requests of a key revoked since it was cached, counting and charging nothing, and says so once', async () => {
    const who = await account('roomy', 10);
    const bystander = await account('roomy', 10);
    // Both counters of the period exist, so the batch below is one the script would write whole.
    await meter.settle({ caller: callerOf(who, 'roomy'), count: true, charge: 1, reason: 'test' });
    await meter.settle({ caller: callerOf(bystander, 'roomy'), count: true, charge: 0, reason: 'test' });
    await db.manager.update(ApiKeyEntity, { id: who.keyId }, { revokedAt: new Date() });
    const results = await outcomes([
      meter.settle({ caller: callerOf(who, 'roomy'), count: true, charge: 1, reason: 'test' }),
      meter.settle({ caller: callerOf(bystander, 'roomy'), count: true, charge: 1, reason: 'test' }),
      meter.settle({ caller: callerOf(who, 'roomy'), count: true, charge: 1, reason: 'test' }),
    ]);
    expect('error' in results[0] && results[0].error).toBeInstanceOf(AuthError);
    expect('error' in results[2] && results[2].error).toBeInstanceOf(AuthError);
    expect(results[1]).toEqual({ value: 9 });
    expect(revoked).toEqual([{ keyId: who.keyId, accountId: who.accountId }]);
    expect(await balance(who.accountId)).toBe(9);
    expect(await counter(who.accountId)).toBe(1);
    expect(await ledger(who.accountId)).toHaveLength(1);
  });

  it('does not charge an unmetered plan, and a charge of 0 writes no ledger row', async () => {
    const free = await account('unmetered', 3);
    const paying = await account('roomy', 3);
    expect(
      await meter.settle({ caller: callerOf(free, 'unmetered'), count: true, charge: 5, reason: 'test' }),
    ).toBe(3);
    expect(
      await meter.settle({ caller: callerOf(paying, 'roomy'), count: true, charge: 0, reason: 'test' }),
    ).toBe(3);
    expect(await ledger(free.accountId)).toEqual([]);
    expect(await ledger(paying.accountId)).toEqual([]);
    expect(await balance(free.accountId)).toBe(3);
  });

  it('writes a batch that fits as one script, and one that does not exactly, leaving nothing of the stopped script', async () => {
    if (!withScript) return;
    const rich = await account('roomy', 100);
    const short = await account('roomy', 1);
    // The period's first requests start the counters (by the exact transaction).
    await meter.settle({ caller: callerOf(rich, 'roomy'), count: true, charge: 0, reason: 'test' });
    await meter.settle({ caller: callerOf(short, 'roomy'), count: true, charge: 0, reason: 'test' });
    const before = { ...meter.trips };
    const remaining = await Promise.all(
      Array.from({ length: 5 }, () =>
        meter.settle({ caller: callerOf(rich, 'roomy'), count: true, charge: 1, reason: 'test' }),
      ),
    );
    expect(remaining).toEqual([99, 98, 97, 96, 95]);
    expect(meter.trips).toEqual({ script: before.script + 1, exact: before.exact });
    // The short account cannot pay for both: the script stops, the exact transaction decides.
    const mixed = await outcomes(
      [rich, short, short].map((who) =>
        meter.settle({ caller: callerOf(who, 'roomy'), count: true, charge: 1, reason: 'test' }),
      ),
    );
    expect(meter.trips.exact).toBe(before.exact + 1);
    expect(mixed.map((r) => 'value' in r)).toEqual([true, true, false]);
    expect(await balance(rich.accountId)).toBe(94);
    expect(await balance(short.accountId)).toBe(0);
    // Each charge's balance after it, those of the script computed in its INSERT from the new balance.
    expect((await ledger(rich.accountId)).map((row) => row.balanceAfter)).toEqual([99, 98, 97, 96, 95, 94]);
    expect(await ledger(short.accountId)).toHaveLength(1);
    expect(await counter(rich.accountId)).toBe(7);
    expect(await counter(short.accountId)).toBe(3);
  });
});

describe('the metering rules of a service call (MeteringService, CreditService)', () => {
  let dir: string;
  let db: Database;
  let meter: UsageMeter;
  let credits: CreditService;
  let metering: MeteringService;
  let caller: Caller;
  let accountId: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'metering-'));
    db = await Database.open(`sqlite:${join(dir, 'metering.db')}`);
    const events = new EventBus();
    meter = new UsageMeter(
      MeteringRepository.of(db),
      plans,
      new QuotaClock(() => NOW),
      events,
      () => undefined,
    );
    credits = new CreditService(db, events, meter);
    metering = new MeteringService(meter, credits, plans);
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    const { identifiers } = await db.manager.insert(AccountEntity, {
      name: 'Test',
      email: `test${Date.now()}${Math.random()}@example.com`,
      plan: 'roomy',
      credits: 5,
      isDemo: false,
      createdAt: new Date(),
    });
    accountId = Number(identifiers[0].id);
    caller = {
      principal: { accountId, keyId: 'demo', plan: 'roomy', isDemo: false },
      requestId: 'r1',
      meter: newMeter(),
    };
  });

  const ledgerRows = async () =>
    Number(
      (
        (await db.query('SELECT COUNT(*) AS n FROM credit_ledger WHERE account_id = ?', [accountId])) as {
          n: number;
        }[]
      )[0].n,
    );
  const counted = async () => MeteringRepository.of(db).countOf(accountId, PERIOD);

  it('charges only after the work succeeded: a failed call is counted, not charged', async () => {
    const failing = metering.run(caller, { minimumCost: 1, cost: () => 2, reason: 'test' }, async () => {
      throw new Error('the work failed');
    });
    await expect(failing).rejects.toThrow('the work failed');
    expect(await credits.balance(accountId)).toBe(5);
    expect(await ledgerRows()).toBe(0);
    expect(await counted()).toBe(1);
    expect(
      await metering.run(caller, { minimumCost: 1, cost: () => 2, reason: 'test' }, async () => 'ok'),
    ).toBe('ok');
    expect(await credits.balance(accountId)).toBe(3);
    expect(caller.meter).toEqual({ spent: 2, remaining: 3 });
  });

  it('refuses a call the balance cannot cover before its work runs', async () => {
    let ran = false;
    const call = metering.run(caller, { minimumCost: 6, cost: () => 6, reason: 'test' }, async () => {
      ran = true;
    });
    await expect(call).rejects.toBeInstanceOf(InsufficientCreditsError);
    expect(ran).toBe(false);
    expect(await credits.balance(accountId)).toBe(5);
  });

  it('a read-only call whose work fails is counted and not charged', async () => {
    const call = metering.run(
      caller,
      { minimumCost: 1, cost: () => 1, reason: 'test', readOnly: true },
      async () => {
        throw new Error('not found');
      },
    );
    await expect(call).rejects.toThrow('not found');
    expect(await credits.balance(accountId)).toBe(5);
    expect(await counted()).toBe(1);
  });

  it('a charge within a transaction the balance cannot cover writes nothing, and is rolled back with it', async () => {
    await expect(db.transaction((m) => credits.chargeWithin(m, caller, 6, 'list'))).rejects.toBeInstanceOf(
      InsufficientCreditsError,
    );
    expect(await credits.balance(accountId)).toBe(5);
    expect(await ledgerRows()).toBe(0);
    expect(await db.transaction((m) => credits.chargeWithin(m, caller, 5, 'list'))).toBe(0);
    expect(await ledgerRows()).toBe(1);
  });

  it('refunds once per key, however often it is asked', async () => {
    const refund = () =>
      db.transaction((m) => credits.refundOnce(m, `job:${accountId}`, accountId, 3, 'refund'));
    expect(await refund()).toBe(8);
    expect(await refund()).toBeNull();
    expect(await credits.balance(accountId)).toBe(8);
    expect(await ledgerRows()).toBe(1);
  });

  it('refuses credits that are not a whole, non-negative number', async () => {
    await expect(credits.grant(accountId, 1.5, 'grant')).rejects.toThrow(/whole number/);
    await expect(credits.charge(caller, -1, 'charge')).rejects.toThrow(/whole number/);
    expect(await ledgerRows()).toBe(0);
  });
});
