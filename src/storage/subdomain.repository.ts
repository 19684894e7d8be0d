import { In } from 'typeorm';
import { Database } from './database';
import { ObservedHostnameEntity } from './entities';

/** Which names of a domain to read, by their DNS check. */
export type ResolvableFilter = 'any' | 'not-unresolvable' | 'unchecked';

/** A page of a domain's observed host names (see names). */
export interface HostnameQuery {
  /** The stored `domain` column (the registrable domain the site index computed). */
  storageDomain: string;
  /** The requested domain: when it differs from storageDomain, only it and names under it. */
  domain: string;
  /** Names after this one (byte order). */
  after?: string;
  take: number;
  /** any; not-unresolvable: resolvable or not checked yet; unchecked: not checked yet. */
  resolvable: ResolvableFilter;
}

/** The subdomain finder's reads and marks on observed_hostnames. */
export class SubdomainRepository {
  constructor(private readonly db: Database) {}

  /** Names of a domain in name order (the column's binary collation), with first and last seen. */
  names(query: HostnameQuery): Promise<ObservedHostnameEntity[]> {
    const { storageDomain, domain, after } = query;
    const builder = this.db.manager
      .createQueryBuilder(ObservedHostnameEntity, 'h')
      .select(['h.id', 'h.name', 'h.firstSeenAt', 'h.lastSeenAt'])
      .where('h.domain = :storageDomain', { storageDomain })
      .orderBy('h.name', 'ASC');
    if (storageDomain !== domain) {
      // Requested labels are [a-z0-9-] only, so the pattern has no LIKE wildcards of its own.
      builder.andWhere('(h.name = :domain OR h.name LIKE :suffix)', { domain, suffix: `%.${domain}` });
    }
    if (after !== undefined) builder.andWhere('h.name > :after', { after });
    if (query.resolvable === 'unchecked') builder.andWhere('h.resolvable IS NULL');
    builder.take(query.take);
    // Unchecked names (NULL) are returned: most were seen in use, and a check is on its way.
    if (query.resolvable === 'not-unresolvable')
      builder.andWhere('(h.resolvable IS NULL OR h.resolvable = 1)');
    return builder.getMany();
  }

  /** Marks names of the stored domain resolvable or not, in one transaction. */
  async markResolvable(
    storageDomain: string,
    groups: { resolvable: string[]; unresolvable: string[] },
  ): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const [resolution, names] of Object.entries(groups)) {
        if (names.length === 0) continue;
        await m.update(
          ObservedHostnameEntity,
          { domain: storageDomain, name: In(names) },
          { resolvable: resolution === 'resolvable' },
        );
      }
    });
  }
}
