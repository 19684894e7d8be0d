import { JobEntity } from '../../../src/storage/entities/job.entity';
import { JobHandlerRegistry, JobKinds, JobQueue, JobRunner } from '../../../src/jobs';
import { loadConfig } from '../../../src/platform/config';
import { jobRunnerOptions } from '../../../src/workers/job-system-settings';
import { eventually } from '../../helpers/eventually';
import { gate, openTestDatabase, OpenedTestDatabase, testRunnerOptions } from '../jobs/job-test-kit';

/**
 * The express lane: a callback delivery enqueued behind many long jobs (crawls) that fill every
 * ordinary slot still runs at once, in a slot of its own. SQLite and MariaDB.
 */
describe('job lanes', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;
  let runner: JobRunner | undefined;

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db);
  });
  afterEach(async () => {
    await runner?.stop();
    await test.db.transaction((m) => m.clear(JobEntity));
  });
  afterAll(async () => {
    await test.close();
  });

  const enqueue = (kind: string, payload: unknown) =>
    test.db.transaction((m) => queue.enqueue(m, kind, payload));

  it('runs a callback delivery while every ordinary slot is held by queued crawls', async () => {
    const crawlsMayFinish = gate();
    const crawlsStarted: number[] = [];
    const delivered: number[] = [];
    const registry = new JobHandlerRegistry()
      .register(JobKinds.analysis, async (payload) => {
        crawlsStarted.push((payload as { n: number }).n);
        await crawlsMayFinish.promise;
      })
      .register(JobKinds.callbackDelivery, async (payload) => {
        delivered.push((payload as { n: number }).n);
      });
    // 40 crawls queued; once two of them hold both ordinary slots, a delivery is queued behind
    // the other 38 (waiting for the crawls to start first made the test independent of timing).
    for (let n = 0; n < 40; n++) await enqueue(JobKinds.analysis, { n });
    runner = new JobRunner(
      queue,
      registry,
      testRunnerOptions(registry.kinds(), {
        concurrency: 2,
        express: { kinds: [JobKinds.callbackDelivery], concurrency: 1 },
      }),
    );
    runner.start();
    await eventually(async () => crawlsStarted.length === 2, 'two crawls hold the ordinary slots');
    const { id } = await enqueue(JobKinds.callbackDelivery, { n: 1 });
    await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'the delivery succeeded');
    // Delivered while the crawls still hold their slots: only two of the forty have started.
    expect(delivered).toEqual([1]);
    expect(crawlsStarted).toHaveLength(2);
    crawlsMayFinish.open();
  });

  it('puts callback deliveries in the express lane and background crawls in the crawl lane of the service settings', () => {
    const options = jobRunnerOptions(
      loadConfig({
        CALLBACK_WORKER_CONCURRENCY: '3',
        WORKER_CONCURRENCY: '4',
        CRAWL_WORKER_CONCURRENCY: '24',
      }),
    );
    expect(options.express).toEqual({ kinds: [JobKinds.callbackDelivery], concurrency: 3 });
    expect(options.crawl).toEqual({ kinds: [JobKinds.siteIndex], concurrency: 24 });
    expect(options.concurrency).toBe(4);
    expect(jobRunnerOptions(loadConfig({})).crawl?.concurrency).toBe(16);
  });

  // Issue 35: at 10,000 imported sites, slow and silent ones held all four ordinary slots for
  // seconds each while the worker sat idle (0.26 cores busy): crawls need slots of their own.
  it('runs as many crawls at once as the crawl lane has slots, beside the ordinary slots', async () => {
    const crawlsMayFinish = gate();
    const crawlsStarted: number[] = [];
    const ordinary: number[] = [];
    const registry = new JobHandlerRegistry()
      .register(JobKinds.siteIndex, async (payload) => {
        crawlsStarted.push((payload as { n: number }).n);
        await crawlsMayFinish.promise;
      })
      .register(JobKinds.analysis, async (payload) => {
        ordinary.push((payload as { n: number }).n);
      });
    for (let n = 0; n < 20; n++) await enqueue(JobKinds.siteIndex, { n });
    runner = new JobRunner(
      queue,
      registry,
      testRunnerOptions(registry.kinds(), {
        concurrency: 1,
        crawl: { kinds: [JobKinds.siteIndex], concurrency: 6 },
      }),
    );
    runner.start();
    await eventually(async () => crawlsStarted.length === 6, 'six crawls hold the crawl slots');
    const { id } = await enqueue(JobKinds.analysis, { n: 1 });
    await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'the ordinary job succeeded');
    expect(ordinary).toEqual([1]);
    // No more crawls than the lane's slots, and the ordinary slot did not take one.
    expect(crawlsStarted).toHaveLength(6);
    crawlsMayFinish.open();
  });
});
