import pino from 'pino';
import { JobEntity } from '../../../src/storage/entities/job.entity';
import { JobHandlerRegistry, JobQueue, JobRunner } from '../../../src/jobs';
import type { Logger } from '../../../src/platform/logger';
import { eventually } from '../../helpers/eventually';
import { gate, openTestDatabase, OpenedTestDatabase, testRunnerOptions } from './job-test-kit';

/**
 * Issue 35: with 16 crawls a worker, a lease renewal often reached a job that had just finished;
 * the renewal found no lease (the job was done) and the runner warned "lease lost; aborting the
 * job" every heartbeat, for leases nobody had taken. The renewal is held here until the job has
 * finished, so the race happens every time. SQLite and (TEST_DATABASE_URL) MariaDB.
 */
describe('a lease renewal that meets a job just finished', () => {
  let test: OpenedTestDatabase;

  beforeAll(async () => {
    test = await openTestDatabase();
  });
  afterAll(async () => {
    await test.db.transaction((m) => m.clear(JobEntity));
    await test.close();
  });

  it('neither warns of a lost lease nor aborts anything', async () => {
    const renewalStarted = gate();
    const renewalMayGo = gate();
    const handlerMayFinish = gate();
    const renewals: boolean[] = [];
    class HeldRenewals extends JobQueue {
      async renewLease(id: number, owner: string, leaseMs: number): Promise<boolean> {
        renewalStarted.open();
        await renewalMayGo.promise;
        const renewed = await super.renewLease(id, owner, leaseMs);
        renewals.push(renewed);
        return renewed;
      }
    }
    const queue = new HeldRenewals(test.db);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) as Logger;
    let aborted = false;
    const registry = new JobHandlerRegistry().register('crawl', async (_payload, context) => {
      context.signal.addEventListener('abort', () => (aborted = true));
      await handlerMayFinish.promise;
    });
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'crawl', {}));
    const runner = new JobRunner(
      queue,
      registry,
      testRunnerOptions(registry.kinds(), { heartbeatMs: 20, logger }),
    );
    runner.start();
    try {
      await renewalStarted.promise;
      handlerMayFinish.open();
      await eventually(async () => (await queue.get(id))?.status === 'succeeded', 'the job succeeded');
      renewalMayGo.open();
      await eventually(async () => renewals.length > 0, 'the held renewal returned');
    } finally {
      await runner.stop();
    }
    expect(renewals[0]).toBe(false);
    expect(lines.filter((line) => line.includes('lease lost'))).toEqual([]);
    expect(aborted).toBe(false);
  });
});
