import { JobEntity } from '../../../src/storage/entities/job.entity';
import { ConflictError } from '../../../src/errors';
import { JobQueue } from '../../../src/jobs';
import { openTestDatabase, OpenedTestDatabase } from './job-test-kit';

describe('JobQueue', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db, { defaultMaxAttempts: 3, backoff: { baseMs: 60_000, capMs: 600_000 } });
  });

  afterAll(async () => {
    await test.close();
  });

  beforeEach(async () => {
    await test.db.transaction((m) => m.clear(JobEntity));
  });

  it('enqueues inside the caller transaction: a rollback leaves no job, a commit keeps it', async () => {
    await expect(
      test.db.transaction(async (m) => {
        await queue.enqueue(m, 'test.kind', { n: 1 });
        throw new Error('caller fails after enqueueing');
      }),
    ).rejects.toThrow('caller fails after enqueueing');
    expect(await test.db.manager.count(JobEntity)).toBe(0);

    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', { n: 2 }));
    const job = await queue.get(id);
    expect(job).toMatchObject({ kind: 'test.kind', status: 'queued', attempts: 0, maxAttempts: 3 });
    expect(JSON.parse(job!.payload)).toEqual({ n: 2 });
  });

  it('returns the existing job for a repeated unique key', async () => {
    const first = await test.db.transaction((m) =>
      queue.enqueue(m, 'test.kind', { n: 1 }, { uniqueKey: 'list:42' }),
    );
    const second = await test.db.transaction((m) =>
      queue.enqueue(m, 'test.kind', { n: 2 }, { uniqueKey: 'list:42' }),
    );
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    expect(await test.db.manager.count(JobEntity)).toBe(1);
  });

  it('hands a due job to one claimer only and leaves future jobs alone', async () => {
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}));
    await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}, { delayMs: 3_600_000 }));
    await test.db.transaction((m) => queue.enqueue(m, 'other.kind', {}));

    const [first, second] = await Promise.all([
      queue.claim('worker-a', ['test.kind'], 5, 60_000),
      queue.claim('worker-b', ['test.kind'], 5, 60_000),
    ]);
    const claimed = [...first, ...second];
    expect(claimed.map((job) => job.id)).toEqual([id]);
    expect(claimed[0]).toMatchObject({ status: 'running', attempts: 1 });
    expect(claimed[0].leaseExpiresAt!.getTime()).toBeGreaterThan(claimed[0].updatedAt.getTime());
  });

  it('recovers a job whose lease expired, and only then', async () => {
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}));
    const [held] = await queue.claim('crashed-worker', ['test.kind'], 1, 60_000);
    expect(held.id).toBe(id);
    expect(await queue.claim('worker-b', ['test.kind'], 1, 60_000)).toEqual([]);

    await expireLease(id);
    const [recovered] = await queue.claim('worker-b', ['test.kind'], 1, 60_000);
    expect(recovered).toMatchObject({ id, status: 'running', attempts: 2, leaseOwner: 'worker-b' });
    expect(recovered.lastError).toMatch(/lease expired/i);
    // The old owner lost the job: its late completion is refused.
    expect(await queue.complete(id, 'crashed-worker')).toBe(false);
    expect(await queue.complete(id, 'worker-b')).toBe(true);
  });

  it('sends a job whose lease expired on its last attempt to dead', async () => {
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}, { maxAttempts: 1 }));
    await queue.claim('crashed-worker', ['test.kind'], 1, 60_000);
    await expireLease(id);
    expect(await queue.claim('worker-b', ['test.kind'], 1, 60_000)).toEqual([]);
    expect(await queue.get(id)).toMatchObject({ status: 'dead', leaseOwner: null });
  });

  it('backs off a failed job exponentially and retries a dead one with fresh attempts', async () => {
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}, { maxAttempts: 2 }));
    const [first] = await queue.claim('w', ['test.kind'], 1, 60_000);
    expect(await queue.fail(first, 'w', 'boom 1')).toBe('queued');
    const waiting = (await queue.get(id))!;
    const delay = waiting.runAt.getTime() - waiting.updatedAt.getTime();
    expect(delay).toBeGreaterThanOrEqual(60_000);
    expect(delay).toBeLessThanOrEqual(75_000);
    expect(await queue.claim('w', ['test.kind'], 1, 60_000)).toEqual([]);

    await queue.retry(id); // a queued job waiting for its backoff is moved up
    const [second] = await queue.claim('w', ['test.kind'], 1, 60_000);
    expect(second.attempts).toBe(2);
    await expect(queue.retry(id)).rejects.toBeInstanceOf(ConflictError);
    expect(await queue.fail(second, 'w', 'boom 2')).toBe('dead');
    expect(await queue.get(id)).toMatchObject({ status: 'dead', attempts: 2, lastError: 'boom 2' });
    expect((await queue.list({ status: 'dead' })).jobs.map((job) => job.id)).toEqual([id]);

    expect(await queue.retry(id)).toMatchObject({ status: 'queued', attempts: 0, finishedAt: null });
    const [third] = await queue.claim('w', ['test.kind'], 1, 60_000);
    expect(third.attempts).toBe(1);
  });

  it('releases a lease without counting the attempt', async () => {
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.kind', {}));
    await queue.claim('w', ['test.kind'], 1, 60_000);
    expect(await queue.release([id], 'someone-else')).toBe(0);
    expect(await queue.release([id], 'w')).toBe(1);
    expect(await queue.get(id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
  });

  async function expireLease(id: number): Promise<void> {
    await test.db.transaction((m) =>
      m.update(JobEntity, { id }, { leaseExpiresAt: new Date(Date.now() - 1_000) }),
    );
  }
});
