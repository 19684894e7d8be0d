import type { EntityManager } from 'typeorm';

/** What a worker asks for when it claims jobs (see JobQueue.claim). */
export interface JobClaim {
  owner: string;
  kinds: readonly string[];
  limit: number;
  now: Date;
  leaseMs: number;
  /** last_error of a job whose lease expired (recovered before the claim). */
  leaseExpiredError: string;
}

/**
 * Recovers expired leases, then leases due jobs to the claim's owner, inside the caller's
 * transaction; returns the ids it leased. One implementation per dialect (job-claim.sqlite.ts,
 * job-claim.mysql.ts), chosen in JobRepository.
 */
export interface JobClaimer {
  claim(m: EntityManager, claim: JobClaim): Promise<number[]>;
}

/** Parameters: finished_at, last_error, updated_at (then the WHERE clause's). */
export const RECOVER_SQL =
  `UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'queued' END,` +
  ` finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,` +
  ` lease_owner = NULL, lease_expires_at = NULL, last_error = ?, updated_at = ?`;

/** Parameters: lease_owner, lease_expires_at, updated_at (then the WHERE clause's). */
export const CLAIM_SQL =
  `UPDATE jobs SET status = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?,` +
  ` updated_at = ?`;
