import type { EntityManager } from 'typeorm';
import { CLAIM_SQL, RECOVER_SQL, type JobClaim, type JobClaimer } from './job-claim';
import { marks } from './padded-lists';

/** Expired leases recovered per claim; more are picked up by the next poll. */
const RECOVERY_BATCH = 100;

/**
 * MySQL/MariaDB: `SELECT ... FOR UPDATE SKIP LOCKED` picks due rows no other worker is claiming,
 * then an UPDATE takes them (and the same for expired leases first).
 */
export class MysqlJobClaimer implements JobClaimer {
  async claim(
    m: EntityManager,
    { owner, kinds, limit, now, leaseMs, leaseExpiredError }: JobClaim,
  ): Promise<number[]> {
    const expired: { id: number }[] = await m.query(
      `SELECT id FROM jobs WHERE status = 'running' AND lease_expires_at < ?` +
        ` ORDER BY lease_expires_at LIMIT ${RECOVERY_BATCH} FOR UPDATE SKIP LOCKED`,
      [now],
    );
    if (expired.length > 0) {
      const ids = expired.map((row) => Number(row.id));
      await m.query(`${RECOVER_SQL} WHERE id IN (${marks(ids.length)})`, [
        now,
        leaseExpiredError,
        now,
        ...ids,
      ]);
    }
    const due: { id: number }[] = await m.query(
      `SELECT id FROM jobs WHERE status = 'queued' AND run_at <= ? AND kind IN (${marks(kinds.length)})` +
        ` ORDER BY run_at, id LIMIT ? FOR UPDATE SKIP LOCKED`,
      [now, ...kinds, limit],
    );
    const ids = due.map((row) => Number(row.id));
    if (ids.length > 0) {
      await m.query(`${CLAIM_SQL} WHERE id IN (${marks(ids.length)})`, [
        owner,
        new Date(now.getTime() + leaseMs),
        now,
        ...ids,
      ]);
    }
    return ids;
  }
}
