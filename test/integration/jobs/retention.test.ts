import { randomUUID } from 'node:crypto';
import { dbDate } from '../../../src/storage/database';
import { eventually } from '../../helpers/eventually';
import { startTestService, TestService } from '../../helpers/test-service';

const DAY = 86_400_000;

/**
 * Retention: finished jobs, delivered callbacks and per-request charges older than their periods
 * are removed in batches; recent ones, unfinished work, failures within their longer period and
 * credit grants and refunds stay. Runs on SQLite and (TEST_DATABASE_URL) MariaDB.
 */
describe('retention of finished work', () => {
  let test: TestService;
  let accountId: number;

  const start = async (sweepEverySeconds: string) => {
    test = await startTestService({
      JOB_RETENTION_DAYS: '7',
      DEAD_JOB_RETENTION_DAYS: '30',
      DELIVERY_LOG_RETENTION_DAYS: '14',
      FAILED_DELIVERY_RETENTION_DAYS: '60',
      USAGE_RETENTION_DAYS: '90',
      CHANGE_LOG_RETENTION_DAYS: '30',
      RETENTION_BATCH_SIZE: '3',
      RETENTION_INTERVAL_SECONDS: sweepEverySeconds,
      // The sweep under test runs in the embedded worker; nothing else should claim the rows.
      JOB_POLL_INTERVAL_MS: '60000',
    });
    ({ accountId } = await test.createAccount({ credits: 0 }));
  };

  afterEach(async () => {
    await test.stop();
  });

  const db = () => test.running.services.db;
  const ago = (days: number) => dbDate(db(), new Date(Date.now() - days * DAY));

  const addJob = async (status: string, finishedDaysAgo: number | null) => {
    const when = ago(finishedDaysAgo ?? 0);
    await db().query(
      'INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at, finished_at, unique_key) ' +
        'VALUES (?, ?, ?, 1, 1, ?, ?, ?, ?, ?)',
      [
        'retention.test',
        '{}',
        status,
        // Queued test jobs are not due for a long time, so no worker picks them up.
        status === 'queued' ? dbDate(db(), new Date(Date.now() + 365 * DAY)) : when,
        when,
        when,
        finishedDaysAgo === null ? null : when,
        randomUUID(),
      ],
    );
  };

  const addDelivery = async (status: string, daysAgo: number) => {
    await db().query(
      'INSERT INTO callback_deliveries (id, account_id, url, event, body, status, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)',
      [randomUUID(), accountId, 'http://127.0.0.1:9/hook', 'test.event', '{}', status, ago(daysAgo)],
    );
  };

  const addLedger = async (kind: string, daysAgo: number) => {
    await db().query(
      'INSERT INTO credit_ledger (account_id, delta, balance_after, kind, reason, created_at) VALUES (?, ?, 0, ?, ?, ?)',
      [accountId, kind === 'charge' ? -1 : 1, kind, `retention ${kind}`, ago(daysAgo)],
    );
  };

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await db().query<{ n: number | string }[]>(sql, params))[0].n);

  it('the worker removes old rows in batches and keeps recent ones, failures and credit movements', async () => {
    await start('1');
    for (let i = 0; i < 7; i++) await addJob('succeeded', 8 + i); // old: removed (over several batches)
    await addJob('succeeded', 6); // recent: kept
    await addJob('dead', 20); // dead, inside its longer period: kept
    await addJob('dead', 31); // old dead: removed
    await addJob('queued', null); // unfinished: kept
    for (let i = 0; i < 4; i++) await addDelivery('delivered', 15 + i); // removed
    await addDelivery('delivered', 13); // kept
    await addDelivery('failed', 30); // failed, inside its longer period: kept
    await addDelivery('failed', 61); // removed
    await addDelivery('pending', 100); // still being delivered: kept
    for (let i = 0; i < 5; i++) await addLedger('charge', 91 + i); // removed
    await addLedger('charge', 89); // kept
    await addLedger('grant', 1000); // never removed
    await addLedger('refund', 1000); // never removed

    const jobs = "SELECT COUNT(*) AS n FROM jobs WHERE kind = 'retention.test'";
    // The embedded worker sweeps every second; wait for the sweep to have done its work.
    await eventually(
      async () =>
        (await count(jobs)) <= 3 &&
        (await count("SELECT COUNT(*) AS n FROM credit_ledger WHERE kind = 'charge'")) <= 1,
      { describe: 'the sweep of the old jobs and charges', timeoutMs: 30_000, intervalMs: 100 },
    );

    const statuses = async (sql: string) =>
      (await db().query<{ status: string }[]>(sql)).map((r) => r.status).sort();
    expect(await statuses("SELECT status FROM jobs WHERE kind = 'retention.test'")).toEqual([
      'dead',
      'queued',
      'succeeded',
    ]);
    expect(
      await count("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'retention.test' AND finished_at < ?", [
        ago(7),
      ]),
    ).toBe(
      1, // the dead job of 20 days ago
    );
    expect(await statuses('SELECT status FROM callback_deliveries')).toEqual([
      'delivered',
      'failed',
      'pending',
    ]);
    expect(
      (await db().query<{ kind: string }[]>('SELECT kind FROM credit_ledger ORDER BY kind')).map(
        (r) => r.kind,
      ),
    ).toEqual(['charge', 'grant', 'refund']);
    expect(await count('SELECT COUNT(*) AS n FROM credit_ledger WHERE created_at > ?', [ago(90)])).toBe(1);
  });

  // The direct sweeps below run in a service whose worker would sweep only after a day, so nothing
  // races them and each count is exact.
  it('a direct sweep reports what it removed and removes nothing twice', async () => {
    await start('86400');
    for (let i = 0; i < 4; i++) await addJob('succeeded', 10);
    await addJob('succeeded', 6); // recent: kept
    const { retention } = test.running.services;
    const first = await retention.purge();
    const second = await retention.purge();
    expect(first).toEqual({
      succeededJobs: 4,
      deadJobs: 0,
      deliveredCallbacks: 0,
      failedCallbacks: 0,
      usageCharges: 0,
      technologyChanges: 0,
    });
    expect(second).toEqual({
      succeededJobs: 0,
      deadJobs: 0,
      deliveredCallbacks: 0,
      failedCallbacks: 0,
      usageCharges: 0,
      technologyChanges: 0,
    });
    expect(
      await count("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'retention.test' AND status = 'succeeded'"),
    ).toBe(1);
  });

  it('removes changes older than CHANGE_LOG_RETENTION_DAYS and keeps the timeline', async () => {
    await start('86400');
    const { siteIndex, retention } = test.running.services;
    const technology = (slug: string) => ({
      name: slug,
      slug,
      categories: [],
      versions: [],
      version: '',
      confidence: 100,
      icon: '',
      website: '',
      implied: false,
      evidence: [],
    });
    const analyse = (days: number, slugs: string[]) =>
      siteIndex.record({
        url: 'http://retained.example/',
        pages: [
          {
            url: 'http://retained.example/',
            isRoot: true,
            technologies: slugs.map(technology),
            languages: [],
          },
        ],
        technologies: slugs.map(technology),
        hostnames: [],
        at: new Date(Date.now() - days * DAY),
      });
    await analyse(40, ['nginx']); // added 40 days ago: removed
    await analyse(31, ['nginx', 'jquery']); // added 31 days ago: removed
    await analyse(2, ['nginx']); // jquery removed 2 days ago: kept
    const changes =
      "SELECT kind, slug FROM technology_changes WHERE site_id = (SELECT id FROM sites WHERE hostname = 'retained.example')";
    expect(await db().query(changes)).toHaveLength(3);
    const swept = await retention.purge();
    const second = await retention.purge();
    expect(swept.technologyChanges).toBe(2);
    expect(second.technologyChanges).toBe(0);
    expect(await db().query(changes)).toEqual([{ kind: 'removed', slug: 'jquery' }]);
    const live = await db().query<{ slug: string; live: number | boolean }[]>(
      'SELECT slug, live FROM site_technologies ORDER BY slug',
    );
    expect(live.map((r) => [r.slug, Boolean(r.live)])).toEqual([
      ['jquery', false],
      ['nginx', true],
    ]);
  });
});
