import type { EntityManager } from 'typeorm';
import { dbDate, type Database } from './database';
import { AccountEntity, MonitorDomainEntity, MonitorEntity, SiteEntity } from './entities';
import { asDate } from './technology-timeline.repository';

/** A watched site the freshness scheduler should look at, with when the index last analysed it. */
export interface DueWatch {
  monitorId: number;
  accountId: number;
  hostname: string;
  recrawlDays: number;
  /** Null when the site is not in the index yet. */
  lastAnalyzedAt: Date | null;
}

/** Monitors (monitors) and the sites they watch (monitor_domains). */
export class MonitorRepository {
  constructor(private readonly db: Database) {}

  /**
   * Locks the account's row for the rest of the transaction (MySQL/MariaDB; SQLite runs one
   * transaction at a time), so two creations of one account count its monitors in turn.
   */
  async lockAccount(m: EntityManager, accountId: number): Promise<void> {
    const lock = this.db.rowLock('pessimistic_write');
    await m.findOne(AccountEntity, {
      where: { id: accountId },
      select: { id: true },
      ...(lock ? { lock: { mode: lock } } : {}),
    });
  }

  countMonitors(m: EntityManager, accountId: number): Promise<number> {
    return m.count(MonitorEntity, { where: { accountId } });
  }

  /** The distinct sites the account's monitors watch. */
  async watchedHostnames(m: EntityManager, accountId: number): Promise<string[]> {
    const rows = await m
      .createQueryBuilder(MonitorDomainEntity, 'd')
      .select('DISTINCT d.hostname', 'hostname')
      .where('d.accountId = :accountId', { accountId })
      .getRawMany<{ hostname: string }>();
    return rows.map((r) => r.hostname);
  }

  async insert(
    m: EntityManager,
    monitor: Omit<MonitorEntity, 'id'>,
    domains: Omit<MonitorDomainEntity, 'monitorId'>[],
  ): Promise<number> {
    const result = await m.insert(MonitorEntity, monitor);
    const id = Number(result.identifiers[0].id);
    if (domains.length > 0)
      await m.insert(
        MonitorDomainEntity,
        domains.map((d) => ({ ...d, monitorId: id })),
      );
    return id;
  }

  /** The account's monitors, oldest first. */
  list(accountId: number): Promise<MonitorEntity[]> {
    return this.db.manager.find(MonitorEntity, { where: { accountId }, order: { id: 'ASC' } });
  }

  /** The account's monitor (null when there is none of that id, or it is another account's). */
  get(accountId: number, id: number): Promise<MonitorEntity | null> {
    return this.db.manager.findOne(MonitorEntity, { where: { id, accountId } });
  }

  /** The sites of these monitors, in monitor and then name order. */
  async domainsOf(
    ids: readonly number[],
    m: EntityManager = this.db.manager,
  ): Promise<MonitorDomainEntity[]> {
    if (ids.length === 0) return [];
    return m
      .createQueryBuilder(MonitorDomainEntity, 'd')
      .where('d.monitorId IN (:...ids)', { ids })
      .orderBy('d.monitorId', 'ASC')
      .addOrderBy('d.hostname', 'ASC')
      .getMany();
  }

  /** Deletes the account's monitor and its sites; whether there was one. */
  async delete(accountId: number, id: number): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const monitor = await m.findOne(MonitorEntity, { where: { id, accountId }, select: { id: true } });
      if (!monitor) return false;
      await m.delete(MonitorDomainEntity, { monitorId: id });
      await m.delete(MonitorEntity, { id });
      return true;
    });
  }

  /**
   * The monitors that may want a change on this site, in the caller's transaction: those watching
   * the site (by its name, or by its registrable domain) and those naming no site at all.
   */
  async candidates(m: EntityManager, hostname: string, domain: string): Promise<MonitorEntity[]> {
    const watching = await m
      .createQueryBuilder(MonitorDomainEntity, 'd')
      .select('DISTINCT d.monitorId', 'monitorId')
      .where('d.hostname = :hostname', { hostname })
      .orWhere('d.domain = :domain', { domain })
      .getRawMany<{ monitorId: number | string }>();
    const ids = watching.map((r) => Number(r.monitorId));
    const query = m.createQueryBuilder(MonitorEntity, 'mo').where('mo.hasDomains = :no', { no: false });
    if (ids.length > 0) query.orWhere('mo.id IN (:...ids)', { ids });
    return query.orderBy('mo.id', 'ASC').getMany();
  }

  /** Up to `limit` watched sites whose next look is due, the longest overdue first. */
  async due(now: Date, limit: number): Promise<DueWatch[]> {
    const rows = await this.db.manager
      .createQueryBuilder(MonitorDomainEntity, 'd')
      .leftJoin(SiteEntity, 's', 's.hostname = d.hostname')
      .select('d.monitorId', 'monitorId')
      .addSelect('d.accountId', 'accountId')
      .addSelect('d.hostname', 'hostname')
      .addSelect('d.recrawlDays', 'recrawlDays')
      .addSelect('s.lastAnalyzedAt', 'lastAnalyzedAt')
      .where('d.nextCrawlAt <= :now', { now: dbDate(this.db, now) })
      .orderBy('d.nextCrawlAt', 'ASC')
      .addOrderBy('d.monitorId', 'ASC')
      .addOrderBy('d.hostname', 'ASC')
      .limit(limit)
      .getRawMany<{
        monitorId: number | string;
        accountId: number | string;
        hostname: string;
        recrawlDays: number | string;
        lastAnalyzedAt: Date | string | null;
      }>();
    return rows.map((r) => ({
      monitorId: Number(r.monitorId),
      accountId: Number(r.accountId),
      hostname: r.hostname,
      recrawlDays: Number(r.recrawlDays),
      lastAnalyzedAt: r.lastAnalyzedAt === null ? null : asDate(r.lastAnalyzedAt),
    }));
  }

  /** When the scheduler next looks at a monitor's site, in the caller's transaction. */
  async setNextCrawl(m: EntityManager, monitorId: number, hostname: string, at: Date): Promise<void> {
    await m.update(MonitorDomainEntity, { monitorId, hostname }, { nextCrawlAt: at });
  }

  /** The account's plan name (null: no such account). */
  async accountPlan(accountId: number): Promise<string | null> {
    const account = await this.db.manager.findOne(AccountEntity, {
      where: { id: accountId },
      select: { id: true, plan: true },
    });
    return account?.plan ?? null;
  }
}
