import { PerTickBatch } from '../platform/per-tick-batch';
import { marks, paddedToPowerOfTwo } from './padded-lists';
import type { RawSql } from './raw-sql';

/** The most host names one statement asks for. */
const MAX_BATCH = 64;

/** A raw row of the sites table, as the driver returns it. */
export type SiteRow = Record<string, unknown> & { hostname: string };

interface Waiting {
  hostname: string;
  resolve: (row: SiteRow | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * Site rows by host name, for the stored lookups: every lookup reads its site's row first, and the
 * lookups that reach that read in the same turn of the event loop share one statement, because
 * on MariaDB the round trip was most of a stored lookup's own cost.
 *
 * Nothing is cached: each read is sent after every request it answers had arrived, so it sees
 * every analysis committed before any of them, as a read of its own would.
 *
 * The statement's list of host names is padded to a power of two (paddedToPowerOfTwo), so a
 * connection prepares at most seven forms of it (1, 2, 4 … 64) rather than one per batch size.
 */
export class SiteRowLoader {
  private readonly pending = new PerTickBatch<Waiting>((batch) => this.dispatch(batch));

  constructor(private readonly sql: RawSql) {}

  /** The row of the site whose host name (without www., lower case: siteKeyOf) is given. */
  load(hostname: string): Promise<SiteRow | undefined> {
    return new Promise((resolve, reject) => this.pending.add({ hostname, resolve, reject }));
  }

  private dispatch(batch: Waiting[]): Promise<unknown> {
    const byName = new Map<string, Waiting[]>();
    for (const waiting of batch) {
      const same = byName.get(waiting.hostname);
      if (same) same.push(waiting);
      else byName.set(waiting.hostname, [waiting]);
    }
    const names = [...byName.keys()];
    const reads: Promise<void>[] = [];
    for (let start = 0; start < names.length; start += MAX_BATCH) {
      reads.push(this.read(names.slice(start, start + MAX_BATCH), byName));
    }
    return Promise.all(reads);
  }

  private async read(names: string[], byName: Map<string, Waiting[]>): Promise<void> {
    let rows: SiteRow[];
    try {
      const asked = paddedToPowerOfTwo(names);
      rows = await this.sql.all<SiteRow>(
        `SELECT * FROM sites WHERE hostname IN (${marks(asked.length)})`,
        asked,
      );
    } catch (error) {
      for (const name of names) for (const waiting of byName.get(name)!) waiting.reject(error);
      return;
    }
    const found = new Map(rows.map((row) => [row.hostname, row]));
    for (const name of names) for (const waiting of byName.get(name)!) waiting.resolve(found.get(name));
  }
}
