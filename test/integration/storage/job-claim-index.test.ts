import { JobEntity } from '../../../src/storage/entities/job.entity';
import { JobKinds, JobQueue } from '../../../src/jobs';
import { openTestDatabase, OpenedTestDatabase } from '../jobs/job-test-kit';

/**
 * Issue 35: with thousands of imported crawls queued, the claim of another lane (callback
 * deliveries, ordinary jobs) must read its own kinds' rows, not walk every queued crawl to find
 * none (on MariaDB it also locks what it reads, FOR UPDATE). The plan of the claim's SELECT is
 * asked of the database itself, SQLite and (with TEST_DATABASE_URL) MariaDB.
 */
describe('claiming jobs of a lane', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;
  const claimSelect =
    "SELECT id FROM jobs WHERE status = 'queued' AND run_at <= ? AND kind IN (?, ?)" +
    ' ORDER BY run_at, id LIMIT 4';

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db);
    await test.db.transaction(async (m) => {
      for (let n = 0; n < 300; n++) await queue.enqueue(m, JobKinds.siteIndex, { domain: `s${n}.test` });
    });
  });
  afterAll(async () => {
    await test.db.transaction((m) => m.clear(JobEntity));
    await test.close();
  });

  it('reads the queued jobs of its own kinds through the (status, kind, run_at) index', async () => {
    const kinds = [JobKinds.callbackDelivery, JobKinds.analysis];
    if (test.db.dialect === 'sqlite') {
      const plan = await test.db.query<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${claimSelect}`, [
        new Date().toISOString(),
        ...kinds,
      ]);
      expect(plan.map((row) => row.detail).join('\n')).toContain('idx_jobs_claim_kind');
    } else {
      const [plan] = await test.db.query<{ key: string; rows: number }[]>(`EXPLAIN ${claimSelect}`, [
        new Date(),
        ...kinds,
      ]);
      expect(plan.key).toBe('idx_jobs_claim_kind');
      // Not the 300 queued crawls: none of them is of these kinds.
      expect(Number(plan.rows)).toBeLessThan(10);
    }
    const claimed = await queue.claim('test-owner', kinds, 4, 60_000);
    expect(claimed).toEqual([]);
  });
});
