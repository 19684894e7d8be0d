import { In, IsNull } from 'typeorm';
import { Database } from '../db/database';
import { DomainRankEntity, SiteEntity } from '../entities';

/** Rows updated per transaction: short transactions, so analyses recording sites never wait long. */
const BATCH = 500;

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
  constructor(private readonly db: Database) {}

  /** Recomputes every observed rank; returns how many sites were ranked and how many ranks changed. */
  async refreshObservedRanks(): Promise<{ ranked: number; changed: number }> {
    if (await this.db.manager.exists(DomainRankEntity, {})) return this.clearObservedRanks();
    const sites = await this.db.manager.find(SiteEntity, {
      where: [{ rankSource: IsNull() }, { rankSource: 'observed' }],
      select: { id: true, hits: true, trafficRank: true, rankSource: true },
      order: { hits: 'DESC', id: 'ASC' },
    });
    const byRank = new Map<number, number[]>();
    let rank = 0;
    let previousHits = Number.POSITIVE_INFINITY;
    sites.forEach((site, position) => {
      if (site.hits < previousHits) {
        rank = position + 1;
        previousHits = site.hits;
      }
      if (site.trafficRank === rank && site.rankSource === 'observed') return;
      const ids = byRank.get(rank) ?? [];
      ids.push(site.id);
      byRank.set(rank, ids);
    });
    let changed = 0;
    let batch: [number, number[]][] = [];
    let size = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const work = batch;
      batch = [];
      size = 0;
      await this.db.transaction(async (m) => {
        for (const [value, ids] of work)
          await m.update(SiteEntity, { id: In(ids) }, { trafficRank: value, rankSource: 'observed' });
      });
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
    return { ranked: sites.length, changed };
  }

  /**
   * Once a ranked list is imported, ranks mean that list: observed ranks (this index's own
   * activity) would be a second scale mixed into the first, so sites not on the list get none.
   */
  private async clearObservedRanks(): Promise<{ ranked: number; changed: number }> {
    const result = await this.db.transaction((m) =>
      m.update(SiteEntity, { rankSource: 'observed' }, { trafficRank: null, rankSource: null }),
    );
    return { ranked: 0, changed: result.affected ?? 0 };
  }
}
