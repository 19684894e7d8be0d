import { EntityManager, In } from 'typeorm';
import { Database } from './database';
import { DomainRankEntity, SiteEntity } from './entities';

/** A site as the observed-rank refresh reads it. */
export interface RankedSiteRow {
  id: number;
  hits: number;
  /** The rank it has now, and where that rank came from. */
  storedRank: number | null;
  source: string | null;
}

/**
 * Traffic ranks: the imported ranked domain list (domain_ranks) and the ranks stored on sites,
 * observed (from the index's own page views) or imported.
 */
export class TrafficRankRepository {
  constructor(private readonly db: Database) {}

  /** Whether a ranked domain list was ever imported. */
  hasImportedRanks(): Promise<boolean> {
    return this.db.manager.exists(DomainRankEntity, {});
  }

  /**
   * One page of the sites ranked by observation (or not ranked), by hits then id, both descending,
   * after the keyset `after`.
   */
  async observedPage(after: { hits: number; id: number } | null, pageSize: number): Promise<RankedSiteRow[]> {
    const rows = (await this.db.query(
      'SELECT id, hits, traffic_rank AS stored_rank, rank_source AS source FROM sites ' +
        "WHERE (rank_source IS NULL OR rank_source = 'observed')" +
        (after ? ' AND (hits < ? OR (hits = ? AND id < ?))' : '') +
        ` ORDER BY hits DESC, id DESC LIMIT ${pageSize}`,
      after ? [after.hits, after.hits, after.id] : [],
    )) as {
      id: number | string;
      hits: number | string;
      stored_rank: number | string | null;
      source: string | null;
    }[];
    return rows.map((row) => ({
      id: Number(row.id),
      hits: Number(row.hits),
      storedRank: row.stored_rank === null ? null : Number(row.stored_rank),
      source: row.source,
    }));
  }

  /** Gives each group of sites its observed rank, in one transaction. */
  async setObservedRanks(groups: readonly (readonly [rank: number, siteIds: number[]])[]): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const [value, ids] of groups)
        await m.update(SiteEntity, { id: In(ids) }, { trafficRank: value, rankSource: 'observed' });
    });
  }

  /** Removes every observed rank; how many sites had one. */
  async clearObservedRanks(): Promise<number> {
    const result = await this.db.transaction((m) =>
      m.update(SiteEntity, { rankSource: 'observed' }, { trafficRank: null, rankSource: null }),
    );
    return result.affected ?? 0;
  }

  /** Stores domains' ranks from an imported list (replacing earlier ones), in the caller's transaction. */
  async upsertDomainRanks(
    m: EntityManager,
    rows: readonly { domain: string; rank: number }[],
    source: string,
    at: Date,
  ): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(DomainRankEntity)
      .values(rows.map((row) => ({ ...row, source, updatedAt: at })))
      .orUpdate(['rank', 'source', 'updated_at'], ['domain'])
      .updateEntity(false)
      .execute();
  }

  /**
   * The index's sites that are these registrable domains themselves, on any port (example.com,
   * www.example.com and example.com:8080 are sites of example.com; blog.example.com is a subdomain).
   */
  domainSites(m: EntityManager, domains: readonly string[]): Promise<Pick<SiteEntity, 'id' | 'domain'>[]> {
    return m.find(SiteEntity, {
      where: { domain: In([...domains]), isSubdomain: false },
      select: { id: true, domain: true },
    });
  }

  /** Gives a site its rank from the imported list. */
  async setImportedRank(m: EntityManager, siteId: number, rank: number): Promise<void> {
    await m.update(SiteEntity, { id: siteId }, { trafficRank: rank, rankSource: 'import' });
  }
}
