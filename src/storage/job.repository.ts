import { EntityManager, In } from 'typeorm';
import { Database } from './database';
import { JobEntity, type JobStatus } from './entities/job.entity';
import type { JobClaim, JobClaimer } from './job-claim';
import { MysqlJobClaimer } from './job-claim.mysql';
import { SqliteJobClaimer } from './job-claim.sqlite';

/** A page of the job table, newest first (see `page`). */
export interface JobPageQuery {
  status?: JobStatus;
  kind?: string;
  /** Rows to read (the caller asks for one more than it shows, to know whether a next page exists). */
  take: number;
  /** Only jobs with a smaller id. */
  before?: number;
}

/** The statements of the durable job table (src/jobs/job-queue.ts decides when to run them). */
export class JobRepository {
  private readonly claimer: JobClaimer;

  constructor(private readonly db: Database) {
    this.claimer = db.dialect === 'mysql' ? new MysqlJobClaimer() : new SqliteJobClaimer(db);
  }

  /** Adds a job in the caller's transaction; its id. */
  async insert(m: EntityManager, values: Partial<JobEntity>): Promise<number> {
    const result = await m.insert(JobEntity, values);
    return Number(result.identifiers[0].id);
  }

  findByUniqueKey(m: EntityManager, uniqueKey: string): Promise<JobEntity | null> {
    return m.findOne(JobEntity, { where: { uniqueKey } });
  }

  /**
   * The committed row even if the transaction's snapshot predates it: on MySQL/MariaDB a locking
   * (current) read, where a plain one would read the snapshot.
   */
  latestByUniqueKey(m: EntityManager, uniqueKey: string): Promise<JobEntity | null> {
    const query = m.createQueryBuilder(JobEntity, 'j').where('j.unique_key = :uniqueKey', { uniqueKey });
    const lock = this.db.rowLock('pessimistic_read');
    if (lock) query.setLock(lock);
    return query.getOne();
  }

  /** Recovers expired leases and leases due jobs (the dialect's way), in the caller's transaction. */
  claimDue(m: EntityManager, claim: JobClaim): Promise<number[]> {
    return this.claimer.claim(m, claim);
  }

  /** The jobs of `ids`, in the order they were due. */
  byIds(m: EntityManager, ids: readonly number[]): Promise<JobEntity[]> {
    return m.find(JobEntity, { where: { id: In([...ids]) }, order: { runAt: 'ASC', id: 'ASC' } });
  }

  get(id: number, m: EntityManager = this.db.manager): Promise<JobEntity | null> {
    return m.findOne(JobEntity, { where: { id } });
  }

  /**
   * Hands the owner's running jobs of `ids` back to the queue without counting their attempt, in
   * a transaction of its own; how many it handed back.
   */
  async release(ids: readonly number[], owner: string): Promise<number> {
    const result = await this.db.transaction((m) =>
      m
        .createQueryBuilder()
        .update(JobEntity)
        .set({
          status: 'queued',
          attempts: () => 'attempts - 1',
          leaseOwner: null,
          leaseExpiresAt: null,
          updatedAt: new Date(),
        })
        .where('id IN (:...ids) AND lease_owner = :owner AND status = :running', {
          ids,
          owner,
          running: 'running',
        })
        .execute(),
    );
    return result.affected ?? 0;
  }

  /** Changes a job that is still in status `from` (compare-and-set); whether it was. */
  async updateIfStatus(
    m: EntityManager,
    id: number,
    from: JobStatus,
    values: Partial<JobEntity>,
  ): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .update(JobEntity)
      .set(values)
      .where('id = :id AND status = :status', { id, status: from })
      .execute();
    return Boolean(result.affected);
  }

  /** Changes a running job the owner still leases, in a transaction of its own; whether it did. */
  async updateLeased(id: number, owner: string, values: Partial<JobEntity>): Promise<boolean> {
    const result = await this.db.transaction((m) =>
      m
        .createQueryBuilder()
        .update(JobEntity)
        .set(values)
        .where('id = :id AND lease_owner = :owner AND status = :running', { id, owner, running: 'running' })
        .execute(),
    );
    return (result.affected ?? 0) > 0;
  }

  /** Jobs newest first, filtered by status and kind, before a job id. */
  page(query: JobPageQuery): Promise<JobEntity[]> {
    const builder = this.db.manager
      .createQueryBuilder(JobEntity, 'j')
      .orderBy('j.id', 'DESC')
      .take(query.take);
    if (query.status) builder.andWhere('j.status = :status', { status: query.status });
    if (query.kind) builder.andWhere('j.kind = :kind', { kind: query.kind });
    if (query.before !== undefined) builder.andWhere('j.id < :before', { before: query.before });
    return builder.getMany();
  }
}
