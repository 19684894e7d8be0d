import { Database, dbDate } from './database';
import { CallbackDeliveryEntity } from './entities/callback-delivery.entity';
import { CreditLedgerEntryEntity } from './entities/credit-ledger-entry.entity';
import { JobEntity } from './entities/job.entity';

/** Database-wide aggregates for the metrics endpoint: counts only, no row leaves. */
export class OperationalFiguresRepository {
  constructor(private readonly db: Database) {}

  /** Jobs per kind and status. */
  async jobsPerKindAndStatus(): Promise<{ kind: string; status: string; count: number }[]> {
    const rows = await this.db.manager
      .createQueryBuilder(JobEntity, 'j')
      .select('j.kind', 'kind')
      .addSelect('j.status', 'status')
      .addSelect('COUNT(*)', 'n')
      .groupBy('j.kind')
      .addGroupBy('j.status')
      .getRawMany<{ kind: string; status: string; n: string | number }>();
    return rows.map((r) => ({ kind: r.kind, status: r.status, count: Number(r.n) }));
  }

  /** Callback deliveries per status. */
  async deliveriesPerStatus(): Promise<{ outcome: string; count: number }[]> {
    const rows = await this.db.manager
      .createQueryBuilder(CallbackDeliveryEntity, 'd')
      .select('d.status', 'outcome')
      .addSelect('COUNT(*)', 'n')
      .groupBy('d.status')
      .getRawMany<{ outcome: string; n: string | number }>();
    return rows.map((r) => ({ outcome: r.outcome, count: Number(r.n) }));
  }

  /** Credits moved per ledger kind (absolute values summed). */
  async creditsPerKind(): Promise<{ kind: string; total: number }[]> {
    const rows = await this.db.manager
      .createQueryBuilder(CreditLedgerEntryEntity, 'l')
      .select('l.kind', 'kind')
      .addSelect('SUM(ABS(l.delta))', 'total')
      .groupBy('l.kind')
      .getRawMany<{ kind: string; total: string | number | null }>();
    return rows.map((r) => ({ kind: r.kind, total: Number(r.total ?? 0) }));
  }

  /** When the oldest queued job of `kind` that is due at `now` became due, or null. */
  async oldestDueAt(kind: string, now: Date): Promise<Date | null> {
    // Through the entity so both dialects hand back a real Date.
    const job = await this.db.manager
      .createQueryBuilder(JobEntity, 'j')
      .where('j.kind = :kind AND j.status = :status AND j.runAt <= :now', {
        kind,
        status: 'queued',
        now: dbDate(this.db, now),
      })
      .orderBy('j.runAt', 'ASC')
      .getOne();
    return job ? job.runAt : null;
  }
}
