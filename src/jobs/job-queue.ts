import { EntityManager, EntitySubscriberInterface, QueryFailedError } from 'typeorm';
import { Database } from '../storage/database';
import { JobEntity, JobStatus } from '../storage/entities/job.entity';
import { JobRepository } from '../storage/job.repository';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { translateDriverError } from '../errors/db-error-translation';
import { BackoffPolicy, backoffDelayMs } from './backoff';

export interface JobQueueOptions {
  /** Attempts of a job enqueued without `maxAttempts` (JOB_MAX_ATTEMPTS). */
  defaultMaxAttempts?: number;
  /** Delay before retrying a failed job. */
  backoff?: BackoffPolicy;
  random?: () => number;
}

export interface EnqueueOptions {
  /** Earliest run time; `delayMs` from now is the other way to say it. */
  runAt?: Date;
  delayMs?: number;
  maxAttempts?: number;
  /** Idempotent enqueue: while a job with this key exists (in any state), no second one is added. */
  uniqueKey?: string;
}

export interface EnqueuedJob {
  id: number;
  /** False when `uniqueKey` matched an existing job, whose id is returned. */
  created: boolean;
}

export interface JobListQuery {
  status?: JobStatus;
  kind?: string;
  limit?: number;
  /** Job id from the previous page: returns older jobs. */
  before?: number;
}

export interface JobPage {
  jobs: JobEntity[];
  nextBefore: number | null;
}

export const DEFAULT_JOB_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 3_600_000 };
const DEFAULT_MAX_ATTEMPTS = 8;
/** Payloads carry ids and parameters; anything bigger belongs in its own table. */
const MAX_PAYLOAD_CHARS = 60_000;
const MAX_ERROR_CHARS = 2_000;
const LEASE_EXPIRED_ERROR = 'Lease expired: the worker running the job stopped or lost contact';

let queueInstances = 0;

/**
 * The durable job table: enqueue inside the caller's transaction (the job exists if and only if the
 * caller's write commits), claim with a lease, renew, complete, fail with backoff, dead after the
 * last attempt, recover expired leases, retry dead jobs.
 *
 * Claiming is one short transaction. MySQL/MariaDB: `SELECT ... FOR UPDATE SKIP LOCKED` picks due
 * rows no other worker is claiming, then an UPDATE takes them. SQLite has one writer at a time, so
 * an `UPDATE ... WHERE id IN (SELECT ...)` is atomic on its own; starting the transaction with a
 * write also makes other processes on the same file wait (busy_timeout) instead of reading a stale
 * snapshot (the statements: src/storage/job-claim.*.ts). Times are the workers' clocks, so hosts
 * sharing a MySQL server need synchronised clocks.
 */
export class JobQueue {
  readonly defaultMaxAttempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly random: () => number;
  private readonly listeners = new Set<() => void>();
  /** Marks a transaction that enqueued, so listeners hear about it once it commits. */
  private readonly commitMarker = `jobQueue${++queueInstances}.enqueued`;
  private readonly jobs: JobRepository;

  constructor(
    private readonly db: Database,
    options: JobQueueOptions = {},
  ) {
    this.defaultMaxAttempts = options.defaultMaxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.backoff = options.backoff ?? DEFAULT_JOB_BACKOFF;
    this.random = options.random ?? Math.random;
    this.jobs = new JobRepository(db);
    // A job enqueued in a still-open transaction is invisible to workers; waking them is only
    // useful after the commit, which TypeORM reports to subscribers.
    db.dataSource.subscribers.push(this.commitSubscriber());
  }

  /** Adds a job in the caller's transaction; it runs only if that transaction commits. */
  async enqueue(
    m: EntityManager,
    kind: string,
    payload: unknown,
    options: EnqueueOptions = {},
  ): Promise<EnqueuedJob> {
    const values = this.newJob(kind, payload, options);
    const { uniqueKey } = options;
    if (uniqueKey === undefined) {
      const id = await this.jobs.insert(m, values);
      this.wakeAfterCommit(m);
      return { id, created: true };
    }
    const existing = await this.jobs.findByUniqueKey(m, uniqueKey);
    if (existing) return { id: existing.id, created: false };
    try {
      const id = await this.jobs.insert(m, values);
      this.wakeAfterCommit(m);
      return { id, created: true };
    } catch (error) {
      // Another transaction added the key since our read; the failed statement alone is undone.
      if (!(error instanceof QueryFailedError) || !(translateDriverError(error) instanceof ConflictError))
        throw error;
      // The committed row even if our transaction's snapshot predates it (MySQL consistent reads).
      const winner = await this.jobs.latestByUniqueKey(m, uniqueKey);
      if (!winner) throw error;
      return { id: winner.id, created: false };
    }
  }

  /** Called after a transaction that enqueued (or retried) a job commits: the runner's wake(). */
  onEnqueued(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Leases up to `limit` due jobs of the given kinds to `owner` for `leaseMs`, counting an attempt
   * each. Jobs whose lease expired first go back to queued (or to dead when that was their last
   * attempt), so a crashed worker's jobs run again.
   */
  async claim(owner: string, kinds: readonly string[], limit: number, leaseMs: number): Promise<JobEntity[]> {
    if (limit <= 0 || kinds.length === 0) return [];
    return this.db.transaction(async (m) => {
      const now = new Date();
      const ids = await this.jobs.claimDue(m, {
        owner,
        kinds,
        limit,
        now,
        leaseMs,
        leaseExpiredError: LEASE_EXPIRED_ERROR,
      });
      if (ids.length === 0) return [];
      return this.jobs.byIds(m, ids);
    });
  }

  /** Extends a lease the owner still holds; false when it was lost (expired and recovered). */
  async renewLease(id: number, owner: string, leaseMs: number): Promise<boolean> {
    const now = new Date();
    return this.updateLeased(id, owner, {
      leaseExpiresAt: new Date(now.getTime() + leaseMs),
      updatedAt: now,
    });
  }

  /** Marks a leased job succeeded; false when the lease was lost (the job will run again). */
  async complete(id: number, owner: string): Promise<boolean> {
    const now = new Date();
    return this.updateLeased(id, owner, {
      status: 'succeeded',
      leaseOwner: null,
      leaseExpiresAt: null,
      finishedAt: now,
      updatedAt: now,
    });
  }

  /**
   * Records a failed attempt: back to queued after `retryDelayMs` (the queue's backoff when not
   * given), or dead when `permanent` or when this was the last attempt. Returns the new status, or
   * null when the lease was lost.
   */
  async fail(
    job: Pick<JobEntity, 'id' | 'attempts' | 'maxAttempts'>,
    owner: string,
    error: string,
    options: { permanent?: boolean; retryDelayMs?: number } = {},
  ): Promise<JobStatus | null> {
    const now = new Date();
    const lastError = error.slice(0, MAX_ERROR_CHARS);
    const dead = options.permanent === true || job.attempts >= job.maxAttempts;
    const delay = options.retryDelayMs ?? backoffDelayMs(this.backoff, job.attempts, this.random);
    const changed = await this.updateLeased(
      job.id,
      owner,
      dead
        ? {
            status: 'dead',
            leaseOwner: null,
            leaseExpiresAt: null,
            lastError,
            finishedAt: now,
            updatedAt: now,
          }
        : {
            status: 'queued',
            leaseOwner: null,
            leaseExpiresAt: null,
            lastError,
            runAt: new Date(now.getTime() + delay),
            updatedAt: now,
          },
    );
    return changed ? (dead ? 'dead' : 'queued') : null;
  }

  /**
   * Queues a leased job again for `runAt` without counting this attempt (DeferJobError: the
   * target asked to wait). Returns false when the lease was lost.
   */
  defer(
    job: Pick<JobEntity, 'id' | 'attempts'>,
    owner: string,
    runAt: Date,
    reason: string,
  ): Promise<boolean> {
    return this.updateLeased(job.id, owner, {
      status: 'queued',
      attempts: Math.max(0, job.attempts - 1),
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: reason.slice(0, MAX_ERROR_CHARS),
      runAt,
      updatedAt: new Date(),
    });
  }

  /**
   * Hands leased jobs back without counting the attempt (graceful shutdown): they are queued again
   * at once for another worker. Returns how many were released.
   */
  async release(ids: readonly number[], owner: string): Promise<number> {
    if (ids.length === 0) return 0;
    return this.jobs.release(ids, owner);
  }

  /**
   * Runs a job again now. A dead (or succeeded) job starts over with fresh attempts; a queued one
   * waiting for its backoff is moved up. A running job cannot be retried (ConflictError).
   * Runs in the caller's transaction when `manager` is given.
   */
  async retry(id: number, manager?: EntityManager): Promise<JobEntity> {
    const work = async (m: EntityManager): Promise<JobEntity> => {
      const job = await this.jobs.get(id, m);
      if (!job) throw new NotFoundError(`Job ${id} not found`);
      if (job.status === 'running') throw new ConflictError(`Job ${id} is running; it cannot be retried now`);
      const now = new Date();
      const restarted = await this.jobs.updateIfStatus(m, id, job.status, {
        status: 'queued',
        attempts: job.status === 'queued' ? job.attempts : 0,
        runAt: now,
        finishedAt: null,
        updatedAt: now,
      });
      if (!restarted) throw new ConflictError(`Job ${id} changed while being retried; try again`);
      this.wakeAfterCommit(m);
      return (await this.jobs.get(id, m)) as JobEntity;
    };
    return manager ? work(manager) : this.db.transaction(work);
  }

  async get(id: number): Promise<JobEntity | null> {
    return this.jobs.get(id);
  }

  async findByUniqueKey(
    uniqueKey: string,
    manager: EntityManager = this.db.manager,
  ): Promise<JobEntity | null> {
    return this.jobs.findByUniqueKey(manager, uniqueKey);
  }

  /** Newest first; dead jobs stay here, visible, until retried. */
  async list(query: JobListQuery = {}): Promise<JobPage> {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
    const rows = await this.jobs.page({
      status: query.status,
      kind: query.kind,
      before: query.before,
      take: limit + 1,
    });
    const jobs = rows.slice(0, limit);
    return { jobs, nextBefore: rows.length > limit ? jobs[jobs.length - 1].id : null };
  }

  private newJob(kind: string, payload: unknown, options: EnqueueOptions): Partial<JobEntity> {
    if (!kind || kind.length > 100) throw new ValidationError('kind', 'kind must be 1 to 100 characters');
    const text = JSON.stringify(payload ?? null);
    if (text.length > MAX_PAYLOAD_CHARS) {
      throw new ValidationError('payload', `payload must be under ${MAX_PAYLOAD_CHARS} characters of JSON`);
    }
    const maxAttempts = options.maxAttempts ?? this.defaultMaxAttempts;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
      throw new ValidationError('maxAttempts', 'maxAttempts must be a whole number of at least 1');
    }
    if (
      options.uniqueKey !== undefined &&
      (options.uniqueKey.length === 0 || options.uniqueKey.length > 200)
    ) {
      throw new ValidationError('uniqueKey', 'uniqueKey must be 1 to 200 characters');
    }
    const now = new Date();
    return {
      kind,
      payload: text,
      status: 'queued',
      attempts: 0,
      maxAttempts,
      runAt: options.runAt ?? new Date(now.getTime() + Math.max(options.delayMs ?? 0, 0)),
      leaseOwner: null,
      leaseExpiresAt: null,
      lastError: null,
      uniqueKey: options.uniqueKey ?? null,
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
    };
  }

  private updateLeased(id: number, owner: string, values: Partial<JobEntity>): Promise<boolean> {
    return this.jobs.updateLeased(id, owner, values);
  }

  private wakeAfterCommit(m: EntityManager): void {
    const runner = m.queryRunner;
    if (runner?.isTransactionActive) runner.data[this.commitMarker] = true;
    else this.notify();
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }

  private commitSubscriber(): EntitySubscriberInterface {
    return {
      afterTransactionCommit: ({ queryRunner }) => {
        // Releasing a savepoint also reports a commit; only the outermost commit makes jobs visible.
        if (queryRunner.isTransactionActive || !queryRunner.data[this.commitMarker]) return;
        delete queryRunner.data[this.commitMarker];
        this.notify();
      },
      afterTransactionRollback: ({ queryRunner }) => {
        if (!queryRunner.isTransactionActive) delete queryRunner.data[this.commitMarker];
      },
    };
  }
}
