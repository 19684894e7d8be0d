import { Database, dbDate } from '../../storage/database';
import { CallbackDeliveryEntity } from '../../storage/entities/callback-delivery.entity';
import { CreditLedgerEntryEntity } from '../../storage/entities/credit-ledger-entry.entity';
import { JobEntity } from '../../storage/entities/job.entity';
import { JOB_KINDS } from '../../jobs/job-kinds';
import type { StoredFigures } from '../../platform/service-metrics';

/**
 * Aggregates for the metrics endpoint, read from the shared database so that every process's
 * work shows: counts only, grouped by kind, status or outcome; no row, key, URL or account leaves.
 */
export class OperationalFiguresService {
  constructor(
    private readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async read(): Promise<StoredFigures> {
    const m = this.db.manager;
    const now = this.now();
    const [jobRows, deliveryRows, creditRows] = await Promise.all([
      m
        .createQueryBuilder(JobEntity, 'j')
        .select('j.kind', 'kind')
        .addSelect('j.status', 'status')
        .addSelect('COUNT(*)', 'n')
        .groupBy('j.kind')
        .addGroupBy('j.status')
        .getRawMany<{ kind: string; status: string; n: string | number }>(),
      m
        .createQueryBuilder(CallbackDeliveryEntity, 'd')
        .select('d.status', 'outcome')
        .addSelect('COUNT(*)', 'n')
        .groupBy('d.status')
        .getRawMany<{ outcome: string; n: string | number }>(),
      m
        .createQueryBuilder(CreditLedgerEntryEntity, 'l')
        .select('l.kind', 'kind')
        .addSelect('SUM(ABS(l.delta))', 'total')
        .groupBy('l.kind')
        .getRawMany<{ kind: string; total: string | number | null }>(),
    ]);
    // The oldest due job per kind, through the entity so both dialects hand back a real Date.
    const oldest = await Promise.all(
      JOB_KINDS.map(async (kind) => {
        const job = await m
          .createQueryBuilder(JobEntity, 'j')
          .where('j.kind = :kind AND j.status = :status AND j.runAt <= :now', {
            kind,
            status: 'queued',
            now: dbDate(this.db, now),
          })
          .orderBy('j.runAt', 'ASC')
          .getOne();
        const seconds = job ? Math.max(0, (now.getTime() - job.runAt.getTime()) / 1000) : 0;
        return { kind, seconds };
      }),
    );
    return {
      jobs: jobRows.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.n) })),
      oldestWaitingSeconds: oldest,
      callbackDeliveries: deliveryRows.map((r) => ({ outcome: r.outcome, count: Number(r.n) })),
      credits: creditRows.map((r) => ({ kind: r.kind, total: Number(r.total ?? 0) })),
    };
  }
}
