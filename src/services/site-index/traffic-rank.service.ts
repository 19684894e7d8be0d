import { Database } from '../../storage/database';
import { TrafficRankRepository } from '../../storage/traffic-rank.repository';

/** Rows updated per transaction: short transactions, so analyses recording sites never wait long. */
const BATCH = 500;
/** Sites read per page while ranking. */
const PAGE = 5_000;

/**
 * Observed traffic ranks: until a ranked domain list is imported, a site's rank is its place among
 * the indexed sites by the page views this service itself recorded (sites.hits), 1 = the most.
 * Sites with equal hits share a rank (competition ranking: 1, 2, 2, 4). Once a ranked domain list
 * has been imported (SiteImportService), ranks are that list's only and observed ones are cleared.
 *
 * Ranks change only when this runs (the worker: at start and every TRAFFIC_RANK_REFRESH_MINUTES;
 * `npm run admin -- sites:rank`), so a lookup reads a stored number instead of counting sites.
 */
export class TrafficRankService {
  private readonly pageSize: number;
  private readonly ranks: TrafficRankRepository;

  constructor(db: Database, options: { pageSize?: number } = {}) {
    this.pageSize = options.pageSize ?? PAGE;
    this.ranks = new TrafficRankRepository(db);
  }

  /**
   * Recomputes every observed rank; returns how many sites were ranked and how many ranks changed.
   * The sites are read in pages (PAGE) along the hits index (keyset pagination, newest id first
   * among equal hits: ties share a rank, so their order does not matter), carrying the position
   * and the current rank from page to page, so memory stays the same at a million sites: reading
   * them all at once held ~130 MB of entities in the worker. A site whose hits change while this
   * runs may be ranked by its old count until the next run.
   */
  async refreshObservedRanks(): Promise<{ ranked: number; changed: number }> {
    if (await this.ranks.hasImportedRanks()) return this.clearObservedRanks();
    let position = 0;
    let rank = 0;
    let previousHits = Number.POSITIVE_INFINITY;
    let after: { hits: number; id: number } | null = null;
    let changed = 0;
    for (;;) {
      const rows = await this.ranks.observedPage(after, this.pageSize);
      if (rows.length === 0) break;
      const byRank = new Map<number, number[]>();
      for (const row of rows) {
        const hits = row.hits;
        if (hits < previousHits) {
          rank = position + 1;
          previousHits = hits;
        }
        position++;
        if (row.storedRank !== null && row.storedRank === rank && row.source === 'observed') continue;
        const ids = byRank.get(rank) ?? [];
        ids.push(row.id);
        byRank.set(rank, ids);
      }
      changed += await this.write(byRank);
      const last = rows[rows.length - 1];
      after = { hits: last.hits, id: last.id };
    }
    return { ranked: position, changed };
  }

  /** New ranks of one page, in transactions of at most BATCH rows. */
  private async write(byRank: Map<number, number[]>): Promise<number> {
    let changed = 0;
    let batch: [number, number[]][] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const work = batch;
      batch = [];
      size = 0;
      const started = performance.now();
      await this.ranks.setObservedRanks(work);
      // Background work: leave the write lock free as long as this held it. On SQLite another
      // process (an API answering requests) waits for the lock by polling, and transactions
      // coming back to back could keep it waiting past its busy timeout.
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, performance.now() - started)));
    };
    for (const [value, ids] of byRank) {
      for (let i = 0; i < ids.length; i += BATCH) {
        const part = ids.slice(i, i + BATCH);
        batch.push([value, part]);
        size += part.length;
        changed += part.length;
        if (size >= BATCH) await flush();
      }
    }
    await flush();
    return changed;
  }

  /**
   * Once a ranked list is imported, ranks mean that list: observed ranks (this index's own
   * activity) would be a second scale mixed into the first, so sites not on the list get none.
   */
  private async clearObservedRanks(): Promise<{ ranked: number; changed: number }> {
    return { ranked: 0, changed: await this.ranks.clearObservedRanks() };
  }
}
