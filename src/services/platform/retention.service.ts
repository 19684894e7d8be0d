import { Database } from '../../storage/database';
import { RetentionRepository, type RetainedWork } from '../../storage/retention.repository';

/** How long finished work is kept (the *_RETENTION_DAYS settings). */
export interface RetentionPolicy {
  succeededJobDays: number;
  deadJobDays: number;
  deliveredCallbackDays: number;
  failedCallbackDays: number;
  usageChargeDays: number;
  /** Rows of the change log (GET /v2/changes/), by the time of the change. */
  technologyChangeDays: number;
  /** Rows removed per statement (RETENTION_BATCH_SIZE): each batch is one short transaction. */
  batchSize: number;
}

export type RetentionCounts = Record<RetentionRule['name'], number>;

interface RetentionRule {
  name: RetainedWork;
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
  private readonly expired: RetentionRepository;

  constructor(
    db: Database,
    private readonly policy: RetentionPolicy,
  ) {
    this.expired = new RetentionRepository(db);
    this.rules = [
      { name: 'succeededJobs', days: policy.succeededJobDays },
      { name: 'deadJobs', days: policy.deadJobDays },
      { name: 'deliveredCallbacks', days: policy.deliveredCallbackDays },
      { name: 'failedCallbacks', days: policy.failedCallbackDays },
      { name: 'usageCharges', days: policy.usageChargeDays },
      { name: 'technologyChanges', days: policy.technologyChangeDays },
    ];
  }

  /** One sweep over every rule; `shouldStop` is checked between batches (worker shutdown). */
  async purge(now = new Date(), shouldStop: () => boolean = () => false): Promise<RetentionCounts> {
    const counts = {} as RetentionCounts;
    for (const rule of this.rules) {
      counts[rule.name] = 0;
      const cutoff = new Date(now.getTime() - rule.days * 86_400_000);
      while (!shouldStop()) {
        const ids = await this.expired.expiredIds(rule.name, cutoff, this.policy.batchSize);
        if (ids.length === 0) break;
        await this.expired.deleteExpired(rule.name, ids, cutoff);
        counts[rule.name] += ids.length;
        if (ids.length < this.policy.batchSize) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return counts;
  }
}
