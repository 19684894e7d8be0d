import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { TimeColumn } from './column-types';

/**
 * queued: waiting for `runAt`; running: leased to a worker until `leaseExpiresAt`;
 * succeeded; dead: attempts used up or a permanent failure (kept, and retryable).
 */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'dead';

/** A unit of background work in the durable job table (see src/jobs/job-queue.ts). */
@Entity('jobs')
export class JobEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  kind: string;

  /** JSON text; small (ids and parameters), the data itself lives in its own tables. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ type: 'varchar', length: 16 })
  status: JobStatus;

  /** Attempts started so far, counted when a worker claims the job. */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'max_attempts', type: 'int' })
  maxAttempts: number;

  /** Earliest time a worker may claim the job (backoff moves it forward). */
  @TimeColumn({ name: 'run_at' })
  runAt: Date;

  @Column({ name: 'lease_owner', type: 'varchar', length: 100, nullable: true })
  leaseOwner: string | null;

  @TimeColumn({ name: 'lease_expires_at', nullable: true })
  leaseExpiresAt: Date | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError: string | null;

  /** Enqueueing again with the same key returns the existing job instead of adding one. */
  @Column({ name: 'unique_key', type: 'varchar', length: 200, nullable: true })
  uniqueKey: string | null;

  @TimeColumn({ name: 'created_at' })
  createdAt: Date;

  @TimeColumn({ name: 'updated_at' })
  updatedAt: Date;

  @TimeColumn({ name: 'finished_at', nullable: true })
  finishedAt: Date | null;
}
