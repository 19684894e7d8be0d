import type { EntityManager } from 'typeorm';
import { Database } from './database';
import { LeadListEntity, type ListStatus } from './entities/lead-list.entity';

/** A row of a list's file as read from the index: the site's columns and its technology data. */
export interface ListSiteRow {
  site_id: number;
  hostname: string;
  scheme: string | null;
  domain: string;
  tld: string;
  is_subdomain: number | boolean;
  version: string;
  st_first: Date | string;
  st_confirmed: Date | string;
  traffic_rank: number | null;
  country: string | null;
  language: string | null;
  industry: string | null;
  company_size: string | null;
  first_seen_at: Date | string;
  last_analyzed_at: Date | string;
  crawl_attempted_at: Date | string | null;
}

/** What a finished calculation stores on its list (Ready, Insufficient or Failed). */
export interface ListOutcome {
  status: ListStatus;
  /** JSON objects: websites per technology, per field set. */
  rows: string;
  setRows: string;
  websites: number;
  totalCredits: number;
  error: string | null;
}

/** Site ids per IN list when reading the sites merged into rows (see siteRows). */
const SITES_PER_READ = 1000;

/** Lead lists' rows (lead_lists) and the index rows their files are written from (lead_list_sites). */
export class LeadListRepository {
  constructor(private readonly db: Database) {}

  /** The customer lists (not datasets') an account created since `since`, deleted ones included. */
  countCreatedSince(m: EntityManager, accountId: number, since: Date): Promise<number> {
    return m
      .createQueryBuilder(LeadListEntity, 'l')
      .where("l.accountId = :accountId AND l.createdAt >= :since AND l.purpose = 'list'", {
        accountId,
        since,
      })
      .getCount();
  }

  /** Ready → Complete, if the account's list is still Ready and not deleted; whether it was. */
  async markComplete(m: EntityManager, id: string, accountId: number): Promise<boolean> {
    const updated = await m
      .createQueryBuilder()
      .update(LeadListEntity)
      .set({ status: 'Complete', completedAt: new Date() })
      .where("id = :id AND account_id = :accountId AND status = 'Ready' AND deleted_at IS NULL", {
        id,
        accountId,
      })
      .execute();
    return Boolean(updated.affected);
  }

  /** Calculating → the outcome's status with its counts, if still Calculating and not deleted; whether it was. */
  async markCalculated(m: EntityManager, id: string, outcome: ListOutcome): Promise<boolean> {
    const result = await m
      .createQueryBuilder()
      .update(LeadListEntity)
      .set({ ...outcome, readyAt: new Date() })
      .where("id = :id AND status = 'Calculating' AND deleted_at IS NULL", { id })
      .execute();
    return Boolean(result.affected);
  }

  /** Customer lists that reached an end state at or after `from`, oldest first, at most `take`. */
  endStatesSince(from: Date, take: number): Promise<LeadListEntity[]> {
    return this.db.manager
      .createQueryBuilder(LeadListEntity, 'l')
      .where(
        "l.readyAt >= :from AND l.status <> 'Calculating' AND l.deletedAt IS NULL AND l.purpose = 'list'",
        { from },
      )
      .orderBy('l.readyAt', 'ASC')
      .take(take)
      .getMany();
  }

  /** The distinct sites of these lists together. */
  async distinctSites(listIds: readonly string[]): Promise<number> {
    const [{ n }] = (await this.db.query(
      `SELECT COUNT(DISTINCT site_id) AS n FROM lead_list_sites WHERE list_id IN (${listIds.map(() => '?').join(',')})`,
      [...listIds],
    )) as { n: number | string }[];
    return Number(n);
  }

  /**
   * One page of a technology's rows of a list, by site id after `after`. With `merged` (subdomains
   * =merge) the technology data is the row's own (merged over the domain by the calculation), else
   * the site's in the index.
   */
  filePage(
    listId: string,
    slug: string,
    after: number,
    take: number,
    merged: boolean,
  ): Promise<ListSiteRow[]> {
    const tech = merged
      ? 'ls.version AS version, ls.first_detected AS st_first, ls.last_detected AS st_confirmed'
      : 'st.version AS version, st.first_seen_at AS st_first, st.confirmed_at AS st_confirmed';
    return this.db.query<ListSiteRow[]>(
      `SELECT ls.site_id AS site_id, s.hostname AS hostname, s.scheme AS scheme, s.domain AS domain, s.tld AS tld,
              s.is_subdomain AS is_subdomain, ${tech}, s.traffic_rank AS traffic_rank, s.country AS country,
              s.language AS language, s.industry AS industry, s.company_size AS company_size,
              s.first_seen_at AS first_seen_at, s.last_analyzed_at AS last_analyzed_at,
              s.crawl_attempted_at AS crawl_attempted_at
         FROM lead_list_sites ls
         JOIN sites s ON s.id = ls.site_id
         ${merged ? '' : 'JOIN site_technologies st ON st.site_id = ls.site_id AND st.slug = ls.slug'}
        WHERE ls.list_id = ? AND ls.slug = ? AND ls.site_id > ?
        ORDER BY ls.site_id
        LIMIT ${take}`,
      [listId, slug, after],
    );
  }

  /** The stored enriched records (JSON) of these sites. */
  enrichments(siteIds: readonly number[]): Promise<{ site_id: number; data: string }[]> {
    return this.db.query(
      `SELECT site_id, data FROM site_enrichments WHERE site_id IN (${siteIds.map(() => '?').join(',')})`,
      [...siteIds],
    );
  }

  /** The languages of these sites, in language order. */
  languages(siteIds: readonly number[]): Promise<{ site_id: number; language: string }[]> {
    return this.db.query(
      `SELECT site_id, language FROM site_languages WHERE site_id IN (${siteIds.map(() => '?').join(',')}) ORDER BY language`,
      [...siteIds],
    );
  }

  /**
   * The sites of these domains, at most `perDomain` each: the domain's own site first, then by
   * traffic rank (then id); in domain order.
   */
  domainSites(domains: readonly string[], perDomain: number): Promise<{ id: number; domain: string }[]> {
    return this.db.query(
      `SELECT x.id AS id, x.domain AS domain FROM (
         SELECT m.id AS id, m.domain AS domain,
                ROW_NUMBER() OVER (PARTITION BY m.domain ORDER BY m.is_subdomain, COALESCE(m.traffic_rank, 2147483647), m.id) AS rn
           FROM sites m WHERE m.domain IN (${domains.map(() => '?').join(',')})) x
        WHERE x.rn <= ${perDomain} ORDER BY x.domain, x.rn`,
      [...domains],
    );
  }

  /** The site columns of a file row for these sites, without technology data. */
  async siteRows(ids: readonly number[]): Promise<ListSiteRow[]> {
    const out: ListSiteRow[] = [];
    for (let i = 0; i < ids.length; i += SITES_PER_READ) {
      const part = ids.slice(i, i + SITES_PER_READ);
      const rows = await this.db.query<ListSiteRow[]>(
        `SELECT s.id AS site_id, s.hostname AS hostname, s.scheme AS scheme, s.domain AS domain, s.tld AS tld,
                s.is_subdomain AS is_subdomain, '' AS version, NULL AS st_first, NULL AS st_confirmed,
                s.traffic_rank AS traffic_rank, s.country AS country, s.language AS language,
                s.industry AS industry, s.company_size AS company_size, s.first_seen_at AS first_seen_at,
                s.last_analyzed_at AS last_analyzed_at, s.crawl_attempted_at AS crawl_attempted_at
           FROM sites s WHERE s.id IN (${part.map(() => '?').join(',')})`,
        part,
      );
      out.push(...rows);
    }
    return out;
  }
}
