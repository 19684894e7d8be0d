import type { EntityManager } from 'typeorm';
import { Database, dbDate } from './database';
import { CLAIM_SQL, RECOVER_SQL, type JobClaim, type JobClaimer } from './job-claim';
import { marks } from './padded-lists';

/**
 * SQLite has one writer at a time, so an `UPDATE ... WHERE id IN (SELECT ...)` is atomic on its
 * own; starting the transaction with a write also makes other processes on the same file wait
 * (busy_timeout) instead of reading a stale snapshot.
 */
export class SqliteJobClaimer implements JobClaimer {
  constructor(private readonly db: Database) {}

  async claim(
    m: EntityManager,
    { owner, kinds, limit, now, leaseMs, leaseExpiredError }: JobClaim,
  ): Promise<number[]> {
    const at = dbDate(this.db, now);
    await m.query(`${RECOVER_SQL} WHERE status = 'running' AND lease_expires_at < ?`, [
      at,
      leaseExpiredError,
      at,
      at,
    ]);
    const rows: { id: number }[] = await m.query(
      `${CLAIM_SQL} WHERE id IN (SELECT id FROM jobs WHERE status = 'queued' AND run_at <= ?` +
        ` AND kind IN (${marks(kinds.length)}) ORDER BY run_at, id LIMIT ?) RETURNING id`,
      [owner, dbDate(this.db, new Date(now.getTime() + leaseMs)), at, at, ...kinds, limit],
    );
    return rows.map((row) => Number(row.id));
  }
}
