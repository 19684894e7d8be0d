import { marks, paddedToPowerOfTwo } from '../../storage/padded-lists';
import type { RawSql } from '../../storage/raw-sql';

/** The most host names one statement asks for. */
const MAX_BATCH = 64;

/** A raw row of the sites table, as the driver returns it. */
export type SiteRow = Record<string, unknown> & { hostname: string };

interface Waiting {
  resolve: (row: SiteRow | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Site rows by host name, for the stored lookups: every lookup reads its site's row first (its
 * last analysis time decides whether the stored answer is fresh, its page views and last analysis
 * time are the version of the in-memory technologies and histories). Under load many requests
 * reach that read in the same turn of the event loop (all the requests parsed from the sockets that
 * were readable together); their host names are read with one statement, in the loop's check phase
 * right after (setImmediate), instead of one round trip each. On MariaDB that round trip (a socket
 * write, a server thread's turn, a read) was most of a stored lookup's own cost.
 *
 * Nothing is cached: each read is sent after every request it answers had arrived, so it sees
 * every analysis committed before any of them, as a read of its own would.
 *
 * The statement's list of host names is padded to a power of two (paddedToPowerOfTwo), so a
 * connection prepares at most seven forms of it (1, 2, 4 … 64) rather than one per batch size.
 */
export class SiteRowLoader {
  private pending = new Map<string, Waiting[]>();
  private scheduled = false;

  constructor(private readonly sql: RawSql) {}

  /** The row of the site whose host name (without www., lower case: siteKeyOf) is given. */
  load(hostname: string): Promise<SiteRow | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(hostname);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(hostname, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.dispatch());
      }
    });
  }

  private dispatch(): void {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    const names = [...batch.keys()];
    for (let start = 0; start < names.length; start += MAX_BATCH) {
      void this.read(names.slice(start, start + MAX_BATCH), batch);
    }
  }

  private async read(names: string[], batch: Map<string, Waiting[]>): Promise<void> {
    let rows: SiteRow[];
    try {
      const asked = paddedToPowerOfTwo(names);
      rows = await this.sql.all<SiteRow>(
        `SELECT * FROM sites WHERE hostname IN (${marks(asked.length)})`,
        asked,
      );
    } catch (error) {
      for (const name of names) for (const waiting of batch.get(name)!) waiting.reject(error);
      return;
    }
    const byName = new Map(rows.map((row) => [row.hostname, row]));
    for (const name of names) for (const waiting of batch.get(name)!) waiting.resolve(byName.get(name));
  }
}
