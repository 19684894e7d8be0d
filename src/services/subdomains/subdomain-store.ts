import type { EntityManager } from 'typeorm';
import { Database } from '../../storage/database';
import type { ObservedHostnameEntity } from '../../storage/entities';
import { SubdomainRepository } from '../../storage/subdomain.repository';
import { acceptSubdomain, compareSubdomainNames, pageOfSubdomainNames } from '../../subdomains';
import type { NameResolution, SubdomainSource } from '../../subdomains';
import type { SiteIndexService } from '../site-index/site-index.service';
import { registrableDomainOf } from '../site-index/site-key';

export interface StoredSubdomain {
  name: string;
  /** First seen. */
  createdAt: Date;
  /** Last seen. */
  updatedAt: Date;
}

export interface SubdomainPage {
  domain: string;
  subdomains: StoredSubdomain[];
  /** Present when more names exist after this page. */
  moreAfter?: string;
}

/** Rows read per round while filling a page; rows the name rules refuse are skipped, not counted. */
const MIN_ROUND = 50;

/**
 * The subdomain finder's view of `observed_hostnames`. Rows are keyed by the registrable domain the
 * site index computes (ICANN suffixes only), while the finder accepts private-suffix domains
 * (`user.github.io`): reads therefore key on the stored domain and, when the two differ, keep only
 * names under the requested one.
 */
export class SubdomainStore {
  private readonly hostnames: SubdomainRepository;

  constructor(
    db: Database,
    private readonly siteIndex: SiteIndexService,
  ) {
    this.hostnames = new SubdomainRepository(db);
  }

  /**
   * One page of names after `after`, in byte order (the column's binary collation), so that walking
   * the pages while names are added never repeats or skips a name (see subdomain-cursor.ts).
   * Names written by other sources that the finder's name rules refuse (service labels such as
   * `_dmarc`, odd spellings) are skipped; reading continues past them so a page is still full.
   */
  async page(
    domain: string,
    options: { limit: number; after?: string; includeUnresolvable: boolean },
  ): Promise<SubdomainPage> {
    const wanted = options.limit + 1;
    const accepted: ObservedHostnameEntity[] = [];
    let cursor = options.after;
    for (;;) {
      const round = Math.max(wanted - accepted.length, MIN_ROUND);
      const rows = await this.rowsAfter(domain, cursor, round, options.includeUnresolvable);
      for (const row of rows) {
        if (acceptSubdomain(row.name, domain) === row.name) accepted.push(row);
      }
      if (rows.length < round || accepted.length >= wanted) break;
      cursor = rows[rows.length - 1].name;
    }
    const byName = new Map(accepted.map((row) => [row.name, row]));
    const { names, moreAfter } = pageOfSubdomainNames(
      accepted.map((row) => row.name),
      options.limit,
    );
    const subdomains = names.map((name) => {
      const row = byName.get(name)!;
      return { name, createdAt: row.firstSeenAt, updatedAt: row.lastSeenAt };
    });
    return moreAfter === undefined ? { domain, subdomains } : { domain, subdomains, moreAfter };
  }

  /** Up to `count` stored names of the domain (any mark), for CNAME checks of the inline DNS pass. */
  async someNames(domain: string, count: number): Promise<string[]> {
    const rows = await this.rowsAfter(domain, undefined, count, true);
    return rows.map((row) => row.name);
  }

  /** Names of the domain not yet checked (resolvable IS NULL), in name order, after `after`. */
  async uncheckedNames(domain: string, count: number, after?: string): Promise<string[]> {
    const rows = await this.hostnames.names({
      storageDomain: storageDomainOf(domain),
      domain,
      after,
      take: count,
      resolvable: 'unchecked',
    });
    return rows.map((row) => row.name);
  }

  /**
   * Records names the finder found (through the site index's one write path, so first/last seen
   * mean the same whoever saw the name). Names that do not belong to the domain are dropped.
   */
  async record(
    m: EntityManager,
    domain: string,
    names: readonly string[],
    source: SubdomainSource,
    at: Date,
  ): Promise<string[]> {
    const accepted = [...new Set(names.map((name) => acceptSubdomain(name, domain)))].filter(
      (name): name is string => name !== null,
    );
    accepted.sort(compareSubdomainNames);
    await this.siteIndex.recordHostnames(m, accepted, source, at);
    return accepted;
  }

  /**
   * Stores resolution results. An `unknown` result (timeout, SERVFAIL) leaves the mark as it was,
   * so a flaky resolver never hides names that exist.
   */
  async markResolution(domain: string, results: ReadonlyMap<string, NameResolution>): Promise<void> {
    const storageDomain = storageDomainOf(domain);
    const groups = { resolvable: [] as string[], unresolvable: [] as string[] };
    for (const [name, resolution] of results) {
      if (resolution !== 'unknown') groups[resolution].push(name);
    }
    await this.hostnames.markResolvable(storageDomain, groups);
  }

  private rowsAfter(
    domain: string,
    after: string | undefined,
    count: number,
    includeUnresolvable: boolean,
  ): Promise<ObservedHostnameEntity[]> {
    // Unchecked names (NULL) are returned: most were seen in use, and a check is on its way.
    return this.hostnames.names({
      storageDomain: storageDomainOf(domain),
      domain,
      after,
      take: count,
      resolvable: includeUnresolvable ? 'any' : 'not-unresolvable',
    });
  }
}

/** The `domain` column value of a requested domain's names (as SiteIndexService computes it). */
export function storageDomainOf(domain: string): string {
  return registrableDomainOf(domain) ?? domain;
}
