import { Database } from '../../storage/database';
import { OperationalFiguresRepository } from '../../storage/operational-figures.repository';
import { JOB_KINDS } from '../../jobs/job-kinds';
import type { StoredFigures } from '../../platform/service-metrics';

/**
 * Aggregates for the metrics endpoint, read from the shared database so that every process's
 * work shows: counts only, grouped by kind, status or outcome; no row, key, URL or account leaves.
 */
export class OperationalFiguresService {
  private readonly figures: OperationalFiguresRepository;

  constructor(
    db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.figures = new OperationalFiguresRepository(db);
  }

  async read(): Promise<StoredFigures> {
    const now = this.now();
    const [jobs, callbackDeliveries, credits] = await Promise.all([
      this.figures.jobsPerKindAndStatus(),
      this.figures.deliveriesPerStatus(),
      this.figures.creditsPerKind(),
    ]);
    // The oldest due job per kind.
    const oldest = await Promise.all(
      JOB_KINDS.map(async (kind) => {
        const runAt = await this.figures.oldestDueAt(kind, now);
        const seconds = runAt ? Math.max(0, (now.getTime() - runAt.getTime()) / 1000) : 0;
        return { kind, seconds };
      }),
    );
    return { jobs, oldestWaitingSeconds: oldest, callbackDeliveries, credits };
  }
}
