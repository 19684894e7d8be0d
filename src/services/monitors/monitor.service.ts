import type { EntityManager } from 'typeorm';
import { InsufficientCreditsError, NotFoundError, PlanLimitError } from '../../errors';
import { logger } from '../../platform/logger';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { PlanCatalog } from '../../plans/plan-catalog';
import type { Database } from '../../storage/database';
import type { MonitorDomainEntity, MonitorEntity } from '../../storage/entities';
import { MonitorRepository } from '../../storage/monitor.repository';
import type { ChangeFeedService, ResolvedChangeFilter } from '../changes/change-feed.service';
import type { ChangeKind, SiteFilter } from '../changes/changes.contract';
import type { CallbackService } from '../platform/callback.service';
import type { Caller } from '../platform/caller';
import type { CreditService } from '../platform/credit.service';
import { parseList } from '../site-index/site-index.service';
import type { RecordedChange } from '../site-index/timeline-writer';
import {
  MONITOR_EVENT,
  type CreateMonitorInput,
  type MonitorCallbackShape,
  type MonitorView,
} from './monitors.contract';
import type { z } from 'zod';

/**
 * Monitors: an account's standing filter over the change log. Every change an analysis records
 * that matches a monitor is called back to it, one callback per monitor, site and analysis,
 * scheduled in the transaction that writes the changes (deliverWithin), so a batch is sent at
 * least once and never for changes that rolled back. The sites a monitor names are re-analysed by
 * the freshness scheduler at least every recrawlDays (FreshnessService.scheduleWatched), charged
 * to the account only when the analysis succeeded (chargeRecrawl).
 */
export class MonitorService {
  private readonly repository: MonitorRepository;

  constructor(
    private readonly db: Database,
    private readonly changes: ChangeFeedService,
    private readonly callbacks: CallbackService,
    private readonly credits: CreditService,
    private readonly plans: PlanCatalog,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.repository = new MonitorRepository(db);
  }

  /**
   * Creates a monitor, within the plan's limits (monitors, distinct watched sites). Its sites are
   * due for an analysis at once (the scheduler's next run). Free: the analyses are charged.
   */
  async create(caller: Caller, input: CreateMonitorInput): Promise<MonitorView> {
    // The catalogue check names the field and the unknown slug.
    this.changes.resolve({ technologies: input.technologies, categories: input.categories });
    await this.callbacks.validateUrl(input.callbackUrl, 'callbackUrl');
    const sites = [...new Map((input.domains ?? []).map((s) => [s.hostname, s])).values()];
    const { accountId } = caller.principal;
    const plan = this.plans.get(caller.principal.plan);
    const now = this.now();
    const id = await this.db.transaction(async (m) => {
      await this.repository.lockAccount(m, accountId);
      const count = await this.repository.countMonitors(m, accountId);
      if (count >= plan.limits.monitors)
        throw new PlanLimitError(
          'monitors',
          plan.limits.monitors,
          plan.name,
          `the account has ${count}; delete one or move to a larger plan`,
        );
      const watched = new Set(await this.repository.watchedHostnames(m, accountId));
      const added = sites.filter((s) => !watched.has(s.hostname)).length;
      if (watched.size + added > plan.limits.watchedDomains)
        throw new PlanLimitError(
          'watched domains',
          plan.limits.watchedDomains,
          plan.name,
          `the account's monitors watch ${watched.size} and this one would add ${added}`,
        );
      return this.repository.insert(
        m,
        {
          accountId,
          callbackUrl: input.callbackUrl,
          technologies: JSON.stringify(input.technologies ?? []),
          categories: JSON.stringify(input.categories ?? []),
          kinds: JSON.stringify(input.kinds ?? []),
          hasDomains: sites.length > 0,
          recrawlDays: input.recrawlDays,
          createdAt: now,
        },
        sites.map((s) => ({
          hostname: s.hostname,
          domain: s.domain,
          accountId,
          recrawlDays: input.recrawlDays,
          nextCrawlAt: now,
        })),
      );
    });
    return this.get(caller, id);
  }

  async list(caller: Caller): Promise<MonitorView[]> {
    const monitors = await this.repository.list(caller.principal.accountId);
    const domains = await this.repository.domainsOf(monitors.map((m) => m.id));
    return monitors.map((monitor) => viewOf(monitor, domains));
  }

  /** The caller's monitor; NotFoundError for an unknown id or another account's monitor. */
  async get(caller: Caller, id: number): Promise<MonitorView> {
    const monitor = await this.repository.get(caller.principal.accountId, id);
    if (!monitor) throw new NotFoundError(`Monitor ${id} not found`);
    return viewOf(monitor, await this.repository.domainsOf([id]));
  }

  async delete(caller: Caller, id: number): Promise<void> {
    if (!(await this.repository.delete(caller.principal.accountId, id)))
      throw new NotFoundError(`Monitor ${id} not found`);
  }

  /** The caller's monitor as a change filter (the subscription's `monitorId`); null: it matches nothing now. */
  async filterOf(caller: Caller, id: number): Promise<ResolvedChangeFilter | null> {
    const monitor = await this.repository.get(caller.principal.accountId, id);
    if (!monitor) throw new NotFoundError(`Monitor ${id} not found`);
    return this.filterOfStored(monitor, await this.repository.domainsOf([id]));
  }

  /**
   * Schedules the callbacks of one analysis's changes (all of one site) in its transaction: one
   * per monitor that any of them matches, carrying every change it matches.
   */
  async deliverWithin(m: EntityManager, changes: readonly RecordedChange[]): Promise<void> {
    if (changes.length === 0) return;
    const { hostname, domain, at } = changes[0];
    const monitors = await this.repository.candidates(m, hostname, domain);
    if (monitors.length === 0) return;
    const domains = await this.repository.domainsOf(
      monitors.filter((monitor) => monitor.hasDomains).map((monitor) => monitor.id),
      m,
    );
    for (const monitor of monitors) {
      const filter = this.filterOfStored(monitor, domains);
      if (!filter) continue;
      const matching = changes.filter((change) => this.changes.matches(filter, change));
      if (matching.length === 0) continue;
      const payload: z.input<typeof MonitorCallbackShape> = {
        event: MONITOR_EVENT,
        monitorId: monitor.id,
        domain: hostname,
        at: Math.floor(at / 1000),
        changes: matching.map(changeJson),
      };
      await this.callbacks.schedule(m, {
        accountId: monitor.accountId,
        url: monitor.callbackUrl,
        event: MONITOR_EVENT,
        payload,
      });
    }
  }

  /** Whether the account can pay for a scheduled analysis of a watched site now. */
  async canPayRecrawl(accountId: number): Promise<boolean> {
    const plan = await this.repository.accountPlan(accountId);
    if (plan === null) return false;
    if (!this.plans.get(plan).metered) return true;
    return (await this.credits.balance(accountId)) >= CREDIT_PRICES.monitorRecrawl.credits;
  }

  /**
   * Charges each account a scheduled analysis was made for, once per job and account (a job run
   * again after a crash charges nothing more). Called only when the analysis succeeded; an account
   * whose balance no longer covers it is not charged (logged).
   */
  async chargeRecrawl(jobId: number, host: string, accountIds: readonly number[]): Promise<void> {
    const price = CREDIT_PRICES.monitorRecrawl;
    const reason = `${price.endpoint}: ${host}`;
    for (const accountId of new Set(accountIds)) {
      const plan = await this.repository.accountPlan(accountId);
      if (plan === null || !this.plans.get(plan).metered) continue;
      try {
        const balance = await this.db.transaction((m) =>
          this.credits.chargeOnce(
            m,
            `monitor-recrawl:${jobId}:${accountId}`,
            accountId,
            price.credits,
            reason,
          ),
        );
        if (balance !== null) this.credits.announce(accountId, balance, -price.credits, reason);
      } catch (error) {
        if (!(error instanceof InsufficientCreditsError)) throw error;
        logger.warn(
          { accountId, host, jobId },
          'monitor re-analysis not charged: the balance no longer covers it',
        );
      }
    }
  }

  private filterOfStored(
    monitor: MonitorEntity,
    domains: readonly MonitorDomainEntity[],
  ): ResolvedChangeFilter | null {
    const sites: SiteFilter[] = domains
      .filter((d) => d.monitorId === monitor.id)
      .map((d) => ({ hostname: d.hostname, domain: d.domain }));
    return this.changes.resolveStored({
      domains: sites,
      technologies: parseList(monitor.technologies),
      categories: parseList(monitor.categories),
      kinds: parseList(monitor.kinds),
    });
  }
}

function viewOf(monitor: MonitorEntity, domains: readonly MonitorDomainEntity[]): MonitorView {
  return {
    id: monitor.id,
    domains: domains.filter((d) => d.monitorId === monitor.id).map((d) => d.hostname),
    technologies: parseList(monitor.technologies),
    categories: parseList(monitor.categories),
    kinds: parseList(monitor.kinds) as ChangeKind[],
    callbackUrl: monitor.callbackUrl,
    recrawlDays: monitor.recrawlDays,
    createdAt: Math.floor(monitor.createdAt.getTime() / 1000),
  };
}

/** A change as the feed publishes it (ChangeShape). */
function changeJson(change: RecordedChange) {
  return {
    id: change.id,
    domain: change.hostname,
    technology: change.slug,
    name: change.name,
    kind: change.kind,
    ...(change.fromVersion ? { fromVersion: change.fromVersion } : {}),
    ...(change.toVersion ? { toVersion: change.toVersion } : {}),
    at: Math.floor(change.at / 1000),
    ...(change.fingerprintsVersion ? { fingerprintsVersion: change.fingerprintsVersion } : {}),
    ...(change.vulnerability ? { vulnerability: change.vulnerability } : {}),
  };
}
