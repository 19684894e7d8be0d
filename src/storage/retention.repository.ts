import { Database, dbDate } from './database';

/** The kinds of finished work the retention sweep removes. */
export type RetainedWork =
  | 'succeededJobs'
  | 'deadJobs'
  | 'deliveredCallbacks'
  | 'failedCallbacks'
  | 'usageCharges'
  | 'technologyChanges';

/** Where each kind lives: its table and a condition on its indexed (status, time) pair; `?` is the cut-off. */
const WORK: Record<RetainedWork, { table: string; where: string }> = {
  succeededJobs: { table: 'jobs', where: "status = 'succeeded' AND finished_at < ?" },
  deadJobs: { table: 'jobs', where: "status = 'dead' AND finished_at < ?" },
  deliveredCallbacks: { table: 'callback_deliveries', where: "status = 'delivered' AND created_at < ?" },
  failedCallbacks: { table: 'callback_deliveries', where: "status = 'failed' AND created_at < ?" },
  // Credit grants, refunds and purchases (the other ledger kinds) are never removed.
  usageCharges: { table: 'credit_ledger', where: "kind = 'charge' AND created_at < ?" },
  // The change log (the timeline itself lives on site_technologies and stays).
  technologyChanges: { table: 'technology_changes', where: 'at < ?' },
};

/** The statements of the retention sweep: select a batch of expired rows, then delete it by primary key. */
export class RetentionRepository {
  constructor(private readonly db: Database) {}

  /** Up to `limit` ids of `work` finished before `cutoff`, in id order (an index range). */
  async expiredIds(work: RetainedWork, cutoff: Date, limit: number): Promise<(number | string)[]> {
    const { table, where } = WORK[work];
    return (
      await this.db.query<{ id: number | string }[]>(
        `SELECT id FROM ${table} WHERE ${where} ORDER BY id LIMIT ${limit}`,
        [dbDate(this.db, cutoff)],
      )
    ).map((r) => r.id);
  }

  /**
   * Deletes those rows in a short transaction of its own. The condition is repeated so a row
   * changed since it was selected is left alone.
   */
  async deleteExpired(work: RetainedWork, ids: readonly (number | string)[], cutoff: Date): Promise<void> {
    const { table, where } = WORK[work];
    const marks = ids.map(() => '?').join(', ');
    await this.db.transaction((m) =>
      m.query(`DELETE FROM ${table} WHERE id IN (${marks}) AND ${where}`, [...ids, dbDate(this.db, cutoff)]),
    );
  }
}
