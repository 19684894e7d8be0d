import { logger } from '../../platform/logger';
import type { Database } from '../../storage/database';
import { migrationStatus } from '../../storage/migrator';
import { probeStorage, StorageState } from '../../storage/write-probe';

/** What /healthz answers: whether the service can do its work (read and write its database). */
export interface HealthReport {
  healthy: boolean;
  database: 'ok' | Exclude<StorageState, 'ok'>;
}

/** What /readyz answers: whether to send the service traffic now. */
export interface ReadinessReport {
  ready: boolean;
  database: HealthReport['database'];
  migrations: 'applied' | 'pending' | 'unknown';
  shuttingDown: boolean;
}

interface Checked {
  database: HealthReport['database'];
  migrations: ReadinessReport['migrations'];
}

/**
 * Health and readiness of this process, for /healthz and /readyz. The checks (a read, a no-op
 * write, the migration table) run at most once per `intervalMs`, and requests that arrive while
 * they run share that run, so a flood of health checks costs the database one check per interval.
 */
export class HealthService {
  private cached: { at: number; value: Checked } | null = null;
  private running: Promise<Checked> | null = null;
  private shuttingDown = false;
  private lastLogged: HealthReport['database'] = 'ok';
  /** How many times the checks ran (a test counts them). */
  checks = 0;

  constructor(
    private readonly db: Database,
    private readonly intervalMs: number,
  ) {}

  /** From now on the process is not ready: it is stopping (SIGTERM) and should get no new traffic. */
  markShuttingDown(): void {
    this.shuttingDown = true;
  }

  async health(): Promise<HealthReport> {
    const { database } = await this.checked();
    return { healthy: database === 'ok', database };
  }

  async readiness(): Promise<ReadinessReport> {
    const shuttingDown = this.shuttingDown;
    const { database, migrations } = await this.checked();
    return {
      ready: database === 'ok' && migrations === 'applied' && !shuttingDown,
      database,
      migrations,
      shuttingDown,
    };
  }

  private checked(): Promise<Checked> {
    if (this.cached && performance.now() - this.cached.at < this.intervalMs) {
      return Promise.resolve(this.cached.value);
    }
    this.running ??= this.runChecks()
      .then((value) => {
        this.cached = { at: performance.now(), value };
        return value;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async runChecks(): Promise<Checked> {
    this.checks++;
    const probe = await probeStorage(this.db);
    if (probe.state !== this.lastLogged) {
      // Once per change, not once per check.
      if (probe.state === 'ok') logger.info('database usable again');
      else logger.error({ err: probe.error, database: probe.state }, 'health check: database not usable');
      this.lastLogged = probe.state;
    }
    let migrations: Checked['migrations'] = 'unknown';
    if (probe.state !== 'unreachable') {
      // On SQLite in the transaction queue's turn, as every use of its one connection.
      migrations = await this.db
        .exclusive(() => migrationStatus(this.db.dataSource))
        .then(
          ({ pending }) => (pending.length === 0 ? 'applied' : 'pending'),
          () => 'unknown' as const,
        );
    }
    return { database: probe.state, migrations };
  }
}
