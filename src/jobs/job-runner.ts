import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JobEntity } from '../storage/entities/job.entity';
import { logger as rootLogger, Logger } from '../platform/logger';
import { JobHandlerRegistry } from './job-handler-registry';
import { DeferJobError, PermanentJobError, RetryJobError } from './job-errors';
import { JobQueue } from './job-queue';

export interface JobRunnerOptions {
  /** Every job kind of the service; start() refuses unless each has exactly one handler. */
  kinds: readonly string[];
  /** Jobs run at the same time (WORKER_CONCURRENCY), not counting the express and crawl lanes'. */
  concurrency: number;
  /**
   * The express lane: short kinds (callback deliveries) claimed first and run in slots of their
   * own, so they never wait behind long jobs (crawls) however many are queued.
   */
  express?: { kinds: readonly string[]; concurrency: number };
  /**
   * The crawl lane: kinds that spend nearly all their time waiting on remote sites (background
   * crawls), in slots of their own. A slow or silent site holds its slot for seconds while the job
   * costs the process a few ms of CPU, so these need many more slots than the ordinary jobs (list
   * files, datasets) that hold memory and CPU; and a burst of imported crawls never takes the
   * ordinary slots either.
   */
  crawl?: { kinds: readonly string[]; concurrency: number };
  /** How long a claimed job stays ours without a renewal (JOB_LEASE_SECONDS). */
  leaseMs: number;
  /** Renewal period of held leases; a third of the lease by default, so two renewals may fail. */
  heartbeatMs?: number;
  /** Poll period when idle (JOB_POLL_INTERVAL_MS); wake() and enqueues in this process skip the wait. */
  pollIntervalMs: number;
  /** How long stop() waits for running jobs before handing their leases back (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /** Lease owner name; host, pid and a random part by default. */
  owner?: string;
  logger?: Logger;
  /** Told of each failed attempt once it is recorded (the metrics count them per kind). */
  onFailure?: (kind: string, outcome: 'retry' | 'dead') => void;
}

interface Lane {
  kinds: string[];
  concurrency: number;
}

interface RunningJob {
  lane: Lane;
  job: JobEntity;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Claims due jobs with a lease and runs their handlers, up to `concurrency` at a time. Several
 * runners (threads of one process or many processes) can share one database: claims never hand a
 * job to two runners, and a runner that dies simply stops renewing, so its jobs are picked up
 * again when their leases expire.
 */
export class JobRunner {
  readonly owner: string;
  private readonly log: Logger;
  private readonly heartbeatMs: number;
  private readonly running = new Map<number, RunningJob>();
  /** Jobs whose handler has returned or thrown: their outcome is being recorded, their lease ends. */
  private readonly finishing = new Set<number>();
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private loopDone: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Set by wake(); makes the next idle wait return at once. */
  private woken = false;
  private interruptIdle: (() => void) | undefined;
  private renewing = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly registry: JobHandlerRegistry,
    private readonly options: JobRunnerOptions,
  ) {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new Error('JobRunner concurrency must be a whole number of at least 1');
    }
    this.owner = (options.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`).slice(
      0,
      100,
    );
    this.log = (options.logger ?? rootLogger).child({ component: 'job-runner', owner: this.owner });
    this.heartbeatMs = options.heartbeatMs ?? Math.max(Math.floor(options.leaseMs / 3), 10);
  }

  /** Checks the handlers against the job kinds, then starts claiming. */
  start(): void {
    if (this.state !== 'new') throw new Error('A JobRunner starts once');
    this.registry.assertExactly(this.options.kinds);
    this.state = 'running';
    this.unsubscribe = this.queue.onEnqueued(() => this.wake());
    this.heartbeat = setInterval(() => void this.renewLeases(), this.heartbeatMs);
    this.loopDone = this.loop();
    this.log.info({ kinds: this.options.kinds, concurrency: this.options.concurrency }, 'job runner started');
  }

  /** Look for work now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.interruptIdle?.();
  }

  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Graceful shutdown: stop claiming, give running jobs up to the grace time, then abort the rest
   * and hand their leases back (queued again, the attempt not counted) so another worker runs them
   * at once instead of after the lease expires.
   */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    this.unsubscribe?.();
    this.wake();
    await this.loopDone;
    const all = Promise.all([...this.running.values()].map((entry) => entry.done));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.shutdownGraceMs)));
    await Promise.race([all, grace]);
    clearTimeout(timer);
    clearInterval(this.heartbeat);
    const unfinished = [...this.running.values()];
    if (unfinished.length > 0) {
      for (const entry of unfinished) entry.abort.abort(new Error('worker shutting down'));
      const ids = unfinished.map((entry) => entry.job.id);
      this.running.clear();
      try {
        const released = await this.queue.release(ids, this.owner);
        this.log.info({ jobIds: ids, released }, 'released leases of unfinished jobs');
      } catch (error) {
        this.log.error({ err: error, jobIds: ids }, 'could not release leases; they will expire');
      }
    }
    this.state = 'stopped';
    this.log.info('job runner stopped');
  }

  private async loop(): Promise<void> {
    const lanes = this.lanes();
    while (this.state === 'running') {
      this.woken = false;
      let fullBatch = false;
      for (const lane of lanes) {
        const busy = [...this.running.values()].filter((entry) => entry.lane === lane).length;
        const free = lane.concurrency - busy;
        if (free <= 0) continue;
        try {
          const jobs = await this.queue.claim(this.owner, lane.kinds, free, this.options.leaseMs);
          // A stop() that arrived during the claim still finds these in `running` and releases them.
          for (const job of jobs) this.launch(job, lane);
          // A full batch suggests more work is due: claim again without waiting.
          if (jobs.length === free) fullBatch = true;
        } catch (error) {
          this.log.error({ err: error }, 'claiming jobs failed; retrying at the next poll');
        }
      }
      if (!fullBatch) await this.idle();
    }
  }

  /** The express lane first (when it has kinds), then the ordinary kinds, then the crawl lane. */
  private lanes(): Lane[] {
    const kinds = this.registry.kinds();
    const { express, crawl } = this.options;
    const expressKinds = kinds.filter((kind) => express?.kinds.includes(kind));
    const crawlKinds = kinds.filter((kind) => !expressKinds.includes(kind) && crawl?.kinds.includes(kind));
    const others = kinds.filter((kind) => !expressKinds.includes(kind) && !crawlKinds.includes(kind));
    const lanes: Lane[] = [];
    if (express && expressKinds.length > 0)
      lanes.push({ kinds: expressKinds, concurrency: express.concurrency });
    if (others.length > 0) lanes.push({ kinds: others, concurrency: this.options.concurrency });
    if (crawl && crawlKinds.length > 0) lanes.push({ kinds: crawlKinds, concurrency: crawl.concurrency });
    return lanes;
  }

  private idle(): Promise<void> {
    if (this.woken || this.state !== 'running') return Promise.resolve();
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.interruptIdle = undefined;
        resolve();
      };
      const timer = setTimeout(finish, this.options.pollIntervalMs);
      this.interruptIdle = finish;
    });
  }

  private launch(job: JobEntity, lane: Lane): void {
    const abort = new AbortController();
    const entry: RunningJob = { lane, job, abort, done: Promise.resolve() };
    entry.done = this.execute(job, abort.signal).finally(() => {
      this.finishing.delete(job.id);
      if (this.running.get(job.id) === entry) this.running.delete(job.id);
      this.wake(); // a slot is free
    });
    this.running.set(job.id, entry);
  }

  private async execute(job: JobEntity, signal: AbortSignal): Promise<void> {
    const log = this.log.child({ jobId: job.id, kind: job.kind, attempt: job.attempts });
    const handler = this.registry.get(job.kind);
    try {
      if (!handler) throw new PermanentJobError(`No handler for job kind ${job.kind}`);
      let payload: unknown;
      try {
        payload = JSON.parse(job.payload);
      } catch {
        throw new PermanentJobError('The job payload is not valid JSON');
      }
      await handler(payload, {
        jobId: job.id,
        kind: job.kind,
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
        signal,
        logger: log,
      });
    } catch (error) {
      if (signal.aborted) return; // released by stop() or lease lost: the job runs again elsewhere
      this.finishing.add(job.id);
      if (error instanceof DeferJobError) return this.defer(job, error, log);
      await this.recordFailure(job, error, log);
      return;
    }
    if (signal.aborted) return;
    this.finishing.add(job.id);
    try {
      if (!(await this.queue.complete(job.id, this.owner))) {
        log.warn('job finished after its lease was lost; it will run again');
      }
    } catch (error) {
      log.error({ err: error }, 'could not mark the job succeeded; it will run again when the lease expires');
    }
  }

  private async defer(job: JobEntity, error: DeferJobError, log: Logger): Promise<void> {
    try {
      if (await this.queue.defer(job, this.owner, error.runAt, error.message))
        log.info({ runAt: error.runAt.toISOString(), reason: error.message }, 'job deferred');
      else log.warn('job deferred after its lease was lost');
    } catch (deferError) {
      log.error({ err: deferError }, 'could not defer the job; the lease will expire');
    }
  }

  private async recordFailure(job: JobEntity, error: unknown, log: Logger): Promise<void> {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    try {
      const status = await this.queue.fail(job, this.owner, message, {
        permanent: error instanceof PermanentJobError,
        retryDelayMs: error instanceof RetryJobError ? error.delayMs : undefined,
      });
      if (status === 'dead' || status === 'queued')
        this.options.onFailure?.(job.kind, status === 'dead' ? 'dead' : 'retry');
      if (status === 'dead') log.error({ err: error }, 'job failed for good (dead)');
      else if (status === 'queued') log.warn({ err: error }, 'job failed; it will be retried');
      else log.warn({ err: error }, 'job failed after its lease was lost');
    } catch (failError) {
      log.error({ err: failError, jobError: message }, 'could not record the failure; the lease will expire');
    }
  }

  private async renewLeases(): Promise<void> {
    // A slow database must not stack renewals on top of each other.
    if (this.renewing) return;
    this.renewing = true;
    try {
      await this.renewEach();
    } finally {
      this.renewing = false;
    }
  }

  private async renewEach(): Promise<void> {
    for (const [id, entry] of [...this.running]) {
      if (entry.abort.signal.aborted || this.finishing.has(id)) continue;
      try {
        const renewed = await this.queue.renewLease(id, this.owner, this.options.leaseMs);
        // A job that finished while its renewal was on the way has no lease left because it is
        // done, not because another worker took it (issue 35: with 16 crawls a worker, renewals
        // met such jobs every heartbeat and warned of lost leases that were not).
        if (!renewed && (this.finishing.has(id) || this.running.get(id) !== entry)) continue;
        if (!renewed) {
          // Another worker may already be running it: tell the handler to stop.
          this.log.warn({ jobId: id }, 'lease lost; aborting the job');
          entry.abort.abort(new Error('job lease lost'));
        }
      } catch (error) {
        this.log.error({ err: error, jobId: id }, 'renewing a lease failed');
      }
    }
  }
}
