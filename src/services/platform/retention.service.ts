import { Database, dbDate } from '../../storage/database';

/** How long finished work is kept (the *_RETENTION_DAYS settings). */
export interface RetentionPolicy {
  succeededJobDays: number;
  deadJobDays: number;
  deliveredCallbackDays: number;
  failedCallbackDays: number;
  usageChargeDays: number;
  /** Rows removed per statement (RETENTION_BATCH_SIZE): each batch is one short transaction. */
  batchSize: number;
}

export type RetentionCounts = Record<RetentionRule['name'], number>;

interface RetentionRule {
  name: 'succeededJobs' | 'deadJobs' | 'deliveredCallbacks' | 'failedCallbacks' | 'usageCharges';
  table: string;
  /** A condition on the indexed (status, time) pair; `?` is the cut-off time. */
  where: string;
  days: number;
}

/**
 * Removes finished work older than its retention period, in small batches: ids are selected first
 * (an index range), then deleted by primary key in their own short transaction, and the loop yields
 * between batches, so writers are never held up behind one long delete. Only what the rules name is
 * removed: queued and running jobs, pending callbacks, and credit grants, refunds and purchases
 * (ledger kinds other than `charge`) are never touched.
 */
export class RetentionService {
  private readonly rules: RetentionRule[];

  constructor(
    private readonly db: Database,
    private readonly policy: RetentionPolicy,
  ) {
    this.rules = [
      {
        name: 'succeededJobs',
        table: 'jobs',
        where: "status = 'succeeded' AND finished_at < ?",
        days: policy.succeededJobDays,
      },
      {
        name: 'deadJobs',
        table: 'jobs',
        where: "status = 'dead' AND finished_at < ?",
        days: policy.deadJobDays,
      },
      {
        name: 'deliveredCallbacks',
        table: 'callback_deliveries',
        where: "status = 'delivered' AND created_at < ?",
        days: policy.deliveredCallbackDays,
      },
      {
        name: 'failedCallbacks',
        table: 'callback_deliveries',
        where: "status = 'failed' AND created_at < ?",
        days: policy.failedCallbackDays,
      },
      {
        name: 'usageCharges',
        table: 'credit_ledger',
        where: "kind = 'charge' AND created_at < ?",
        days: policy.usageChargeDays,
      },
    ];
  }

  /** One sweep over every rule; `shouldStop` is checked between batches (worker shutdown). */
  async purge(now = new Date(), shouldStop: () => boolean = () => false): Promise<RetentionCounts> {
    const counts = {} as RetentionCounts;
    for (const rule of this.rules) {
      counts[rule.name] = 0;
      const cutoff = dbDate(this.db, new Date(now.getTime() - rule.days * 86_400_000));
      while (!shouldStop()) {
        const ids = (
          await this.db.query<{ id: number | string }[]>(
            `SELECT id FROM ${rule.table} WHERE ${rule.where} ORDER BY id LIMIT ${this.policy.batchSize}`,
            [cutoff],
          )
        ).map((r) => r.id);
        if (ids.length === 0) break;
        const marks = ids.map(() => '?').join(', ');
        // The condition is repeated so a row changed since it was selected is left alone.
        await this.db.transaction((m) =>
          m.query(`DELETE FROM ${rule.table} WHERE id IN (${marks}) AND ${rule.where}`, [...ids, cutoff]),
        );
        counts[rule.name] += ids.length;
        if (ids.length < this.policy.batchSize) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return counts;
  }
}
