import { ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { JobHandlerRegistry, JobQueue, JobRunner } from '../../../src/jobs';
import { eventually } from '../../helpers/eventually';
import { openTestDatabase, OpenedTestDatabase, testRunnerOptions } from './job-test-kit';

const WORKER = resolve(__dirname, '../../fixtures/workers/crash-test-worker.ts');
const LEASE_MS = 1_500;

describe('a worker process killed in the middle of a job', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;
  let dir: string;
  let child: ChildProcess | undefined;
  let runner: JobRunner | undefined;

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db);
    dir = mkdtempSync(join(tmpdir(), 'tis-crash-'));
  });

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await runner?.stop();
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the job to another worker once the lease expires, and it completes exactly once', async () => {
    const journal = join(dir, 'journal.log');
    const { id } = await test.db.transaction((m) => queue.enqueue(m, 'test.crash', { step: 'one' }));

    child = fork(WORKER, [], {
      execArgv: ['-r', '@swc-node/register'],
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: test.url,
        JOURNAL: journal,
        LEASE_MS: String(LEASE_MS),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const messages: Record<string, unknown>[] = [];
    child.on('message', (message) => messages.push(message as Record<string, unknown>));
    const exited = new Promise((resolveExit) => child!.once('exit', resolveExit));

    await eventually(() => messages.some((message) => message.started === id), {
      describe: 'the worker started the job',
      timeoutMs: 45_000,
    });
    const childOwner = messages.find((message) => message.owner)?.owner;
    const leased = await queue.get(id);
    expect(leased).toMatchObject({ status: 'running', attempts: 1, leaseOwner: childOwner });
    // The child's heartbeat keeps the lease alive while it is up.
    await eventually(
      async () => ((await queue.get(id))?.leaseExpiresAt?.getTime() ?? 0) > leased!.leaseExpiresAt!.getTime(),
      'the worker renewed its lease',
    );

    child.kill('SIGKILL');
    await exited;
    expect((await queue.get(id))!.status).toBe('running'); // nobody finished it: only the lease can tell

    const finished: number[] = [];
    const registry = new JobHandlerRegistry().register('test.crash', async (_payload, context) => {
      finished.push(context.attempt);
    });
    runner = new JobRunner(queue, registry, testRunnerOptions(['test.crash'], { pollIntervalMs: 50 }));
    runner.start();

    const done = await eventually(async () => {
      const job = await queue.get(id);
      return job?.status === 'succeeded' && job;
    }, 'the job succeeded on the second worker');
    expect(finished).toEqual([2]);
    expect(done).toMatchObject({ attempts: 2, leaseOwner: null });
    expect(done.lastError).toMatch(/lease expired/i);
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toEqual([
      `start ${id} attempt=1 pid=${child.pid}`,
    ]);
  });
});
