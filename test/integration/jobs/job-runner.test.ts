import { Database } from '../../../src/storage/database';
import { JobEntity } from '../../../src/storage/entities/job.entity';
import { JobHandlerRegistry, JobQueue, JobRunner, PermanentJobError } from '../../../src/jobs';
import { eventually } from '../../helpers/eventually';
import { gate, openTestDatabase, OpenedTestDatabase, testRunnerOptions } from './job-test-kit';

describe('JobRunner', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;
  const runners: JobRunner[] = [];
  const extraDatabases: Database[] = [];

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db, { defaultMaxAttempts: 3, backoff: { baseMs: 10, capMs: 40 } });
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop()));
    await test.db.transaction((m) => m.clear(JobEntity));
  });

  afterAll(async () => {
    await Promise.all(extraDatabases.map((db) => db.close()));
    await test.close();
  });

  function startRunner(
    registry: JobHandlerRegistry,
    overrides: Parameters<typeof testRunnerOptions>[1] = {},
    jobQueue = queue,
  ): JobRunner {
    const runner = new JobRunner(jobQueue, registry, testRunnerOptions(registry.kinds(), overrides));
    runners.push(runner);
    runner.start();
    return runner;
  }

  const enqueue = (kind: string, payload: unknown, options = {}) =>
    test.db.transaction((m) => queue.enqueue(m, kind, payload, options));

  it('starts a job enqueued in this process at once, without waiting for a poll', async () => {
    const seen: unknown[] = [];
    const registry = new JobHandlerRegistry().register('test.echo', async (payload) => {
      seen.push(payload);
    });
    // start() claims at once and finds nothing; with an hour between polls, only the commit of
    // this enqueue can make the runner look again.
    startRunner(registry, { pollIntervalMs: 3_600_000 });
    const { id } = await enqueue('test.echo', { hello: 'world' });
    await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'job succeeded');
    expect(seen).toEqual([{ hello: 'world' }]);
    expect(await queue.get(id)).toMatchObject({ attempts: 1, leaseOwner: null, leaseExpiresAt: null });
  });

  it('retries a failing job with backoff until it is dead, and runs it again after retry()', async () => {
    const attempts: number[] = [];
    let succeed = false;
    const registry = new JobHandlerRegistry().register('test.flaky', async (_payload, context) => {
      attempts.push(context.attempt);
      if (!succeed) throw new Error(`failure ${context.attempt}`);
    });
    startRunner(registry);
    const { id } = await enqueue('test.flaky', {});
    const dead = await eventually(async () => {
      const job = await queue.get(id);
      return job?.status === 'dead' && job;
    }, 'job dead');
    expect(attempts).toEqual([1, 2, 3]);
    expect(dead).toMatchObject({ attempts: 3, lastError: 'Error: failure 3' });
    expect(dead.finishedAt).not.toBeNull();

    succeed = true;
    await queue.retry(id);
    await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'retried job succeeded');
    expect(attempts).toEqual([1, 2, 3, 1]);
  });

  it('sends a job to dead at once on a permanent error', async () => {
    let calls = 0;
    const registry = new JobHandlerRegistry().register('test.permanent', async () => {
      calls++;
      throw new PermanentJobError('cannot ever work');
    });
    startRunner(registry);
    const { id } = await enqueue('test.permanent', {});
    await eventually(async () => (await queue.get(id))?.status === 'dead', 'job dead');
    expect(calls).toBe(1);
    expect((await queue.get(id))!.lastError).toBe('PermanentJobError: cannot ever work');
  });

  it('never runs a job twice when two runners claim at the same time', async () => {
    // On MySQL each runner gets its own connection pool, as separate processes would. On SQLite
    // one process has one connection; separate processes are covered by the crash test.
    const otherQueue =
      test.db.dialect === 'mysql'
        ? new JobQueue(await openExtra(test.url), {
            defaultMaxAttempts: 3,
            backoff: { baseMs: 10, capMs: 40 },
          })
        : queue;
    const runs = new Map<number, string[]>();
    const handlerFor = (name: string) => async (payload: { n: number }) => {
      runs.set(payload.n, [...(runs.get(payload.n) ?? []), name]);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
    };
    const total = 40;
    await test.db.transaction(async (m) => {
      for (let n = 0; n < total; n++) await queue.enqueue(m, 'test.count', { n });
    });
    startRunner(new JobHandlerRegistry().register('test.count', handlerFor('a')), { concurrency: 4 });
    startRunner(
      new JobHandlerRegistry().register('test.count', handlerFor('b')),
      { concurrency: 4 },
      otherQueue,
    );
    await eventually(
      async () => (await test.db.manager.count(JobEntity, { where: { status: 'succeeded' } })) === total,
      'all jobs succeeded',
    );
    expect(runs.size).toBe(total);
    for (const [, names] of runs) expect(names).toHaveLength(1);
    const jobs = await test.db.manager.find(JobEntity);
    expect(jobs.every((job) => job.attempts === 1)).toBe(true);
  });

  it('renews the lease of a long job so no other runner takes it over', async () => {
    const release = gate();
    let runs = 0;
    const registry = () =>
      new JobHandlerRegistry().register('test.long', async () => {
        runs++;
        await release.promise;
      });
    startRunner(registry(), { leaseMs: 300, heartbeatMs: 60 });
    const { id } = await enqueue('test.long', {});
    const firstLease = await eventually(
      async () => (await queue.get(id))?.leaseExpiresAt?.getTime(),
      'job leased',
    );
    startRunner(registry(), { leaseMs: 300 });
    // Wait until the lease has been renewed past two whole lease periods after the first one.
    await eventually(
      async () => ((await queue.get(id))?.leaseExpiresAt?.getTime() ?? 0) > firstLease + 600,
      'lease renewed beyond the original lease',
    );
    release.open();
    await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'job succeeded');
    expect(runs).toBe(1);
    expect((await queue.get(id))!.attempts).toBe(1);
  });

  it('stop() lets running jobs finish within the grace time and hands back the rest uncounted', async () => {
    const quick = gate();
    const started: string[] = [];
    let abortedReason: unknown;
    const registry = new JobHandlerRegistry()
      .register('test.quick', async () => {
        started.push('quick');
        await quick.promise;
      })
      .register('test.stuck', async (_payload, context) => {
        started.push('stuck');
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
        abortedReason = context.signal.reason;
        throw new Error('aborted');
      });
    const runner = startRunner(registry, { shutdownGraceMs: 300 });
    const quickJob = await enqueue('test.quick', {});
    const stuckJob = await enqueue('test.stuck', {});
    await eventually(() => started.length === 2, 'both jobs started');

    const stopping = runner.stop();
    quick.open();
    await stopping;

    expect(await queue.get(quickJob.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await queue.get(stuckJob.id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
    expect(String(abortedReason)).toMatch(/shutting down/);
    expect(runner.inFlight).toBe(0);
  });

  it('refuses to start unless every job kind has exactly one handler', () => {
    const registry = new JobHandlerRegistry().register('a', async () => undefined);
    expect(() => registry.register('a', async () => undefined)).toThrow(/already registered/);
    const missing = new JobRunner(queue, registry, testRunnerOptions(['a', 'b']));
    expect(() => missing.start()).toThrow(/no handler for job kind\(s\): b/);
    const stray = new JobRunner(queue, registry, testRunnerOptions([]));
    expect(() => stray.start()).toThrow(/undeclared job kind\(s\): a/);
  });

  async function openExtra(url: string): Promise<Database> {
    const db = await Database.open(url, { migrate: false });
    extraDatabases.push(db);
    return db;
  }
});
