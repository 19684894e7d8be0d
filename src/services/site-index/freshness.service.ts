import { Database } from '../../storage/database';
import { SiteEntity } from '../../storage/entities';
import { SiteIndexRepository } from '../../storage/site-index.repository';
import { JobKinds } from '../../jobs/job-kinds';
import { JobQueue } from '../../jobs/job-queue';
import type { HostBackoffStore } from '../../fetch/host-backoff';
import { MonitorRepository } from '../../storage/monitor.repository';

export interface FreshnessSettings {
  /** A site last analysed longer ago than this is re-analysed; 0 turns re-analysis off. */
  recrawlAfterDays: number;
  /** Sites scheduled per run (the worker runs once a minute). */
  perRun: number;
  /** Hosts that asked every worker to wait (429/503): their re-crawl is scheduled after the wait. */
  hostBackoff?: HostBackoffStore;
  /** Whether an account can pay for an analysis of a site its monitor watches (MonitorService). */
  canPayWatch?: (accountId: number) => Promise<boolean>;
}

const DAY_MS = 86_400_000;

/** A site.index job that refreshes a known site, by the host the index keys it by. */
export interface SiteRefreshPayload {
  host: string;
  /** The accounts whose monitors asked for this analysis: each is charged once it succeeded. */
  monitorAccounts?: number[];
}

/**
 * Keeps the index fresh: sites whose last analysis is older than RECRAWL_AFTER_DAYS are crawled
 * again through the ordinary site.index job, most-trafficked first (smallest rank, then most
 * recorded page views), at most RECRAWL_PER_MINUTE a minute. Scheduling counts as an attempt
 * (crawl_attempted_at), so a site is scheduled at most once a day even when its crawl keeps
 * failing, and the next run moves on to the next sites. A technology that a re-analysis no longer
 * sees keeps its last confirmation time, so it falls out of max_age windows instead of being
 * reported forever.
 */
export class FreshnessService {
  private readonly index: SiteIndexRepository;
  private readonly watches: MonitorRepository;

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    private readonly settings: FreshnessSettings,
  ) {
    this.index = new SiteIndexRepository(db);
    this.watches = new MonitorRepository(db);
  }

  async scheduleStale(now = new Date()): Promise<{ scheduled: string[]; watched: string[] }> {
    const { watched } = await this.scheduleWatched(now);
    if (this.settings.recrawlAfterDays <= 0 || this.settings.perRun <= 0) return { scheduled: [], watched };
    const staleBefore = new Date(now.getTime() - this.settings.recrawlAfterDays * DAY_MS);
    const triedBefore = new Date(now.getTime() - DAY_MS);
    const sites = await this.index.staleSites(staleBefore, triedBefore, this.settings.perRun);
    if (sites.length === 0) return { scheduled: [], watched };
    const day = now.toISOString().slice(0, 10);
    const backoff = this.settings.hostBackoff;
    const waits = await Promise.all(
      sites.map((site) => (backoff ? backoff.blockedUntil(site.hostname).catch(() => 0) : 0)),
    );
    await this.db.transaction(async (m) => {
      for (const [i, site] of sites.entries()) {
        const payload: SiteRefreshPayload = { host: site.hostname };
        await this.queue.enqueue(m, JobKinds.siteIndex, payload, {
          uniqueKey: `recrawl:${site.hostname}:${day}`,
          // Not before the host's Retry-After: a job claimed sooner would only be deferred again.
          ...(waits[i] > now.getTime() ? { runAt: new Date(waits[i]) } : {}),
        });
        await m.update(SiteEntity, { id: site.id }, { crawlAttemptedAt: now });
      }
    });
    return { scheduled: sites.map((s) => s.hostname), watched };
  }

  /**
   * The sites monitors watch (whatever RECRAWL_AFTER_DAYS says): each is analysed at least every
   * recrawlDays of its monitor. A watch falls due recrawlDays after it was last scheduled (a new
   * one at once); a site the index analysed more recently than that for any other reason is not
   * analysed again, its watch moved to recrawlDays after that analysis. One site.index job per
   * site and day carries the accounts it is for, each charged when it succeeds; an account that
   * cannot pay is skipped and its watch looked at again a day later. At most RECRAWL_PER_MINUTE
   * watches are looked at per run.
   */
  async scheduleWatched(now = new Date()): Promise<{ watched: string[] }> {
    if (this.settings.perRun <= 0) return { watched: [] };
    const due = await this.watches.due(now, this.settings.perRun);
    if (due.length === 0) return { watched: [] };
    const accounts = new Map<string, Set<number>>();
    const next: { monitorId: number; hostname: string; at: Date }[] = [];
    const payers = new Map<number, boolean>();
    for (const watch of due) {
      const fresh =
        watch.lastAnalyzedAt && watch.lastAnalyzedAt.getTime() + watch.recrawlDays * DAY_MS > now.getTime();
      if (fresh) {
        next.push({ ...watch, at: new Date(watch.lastAnalyzedAt!.getTime() + watch.recrawlDays * DAY_MS) });
        continue;
      }
      if (!payers.has(watch.accountId))
        payers.set(watch.accountId, (await this.settings.canPayWatch?.(watch.accountId)) ?? true);
      if (!payers.get(watch.accountId)) {
        next.push({ ...watch, at: new Date(now.getTime() + DAY_MS) });
        continue;
      }
      accounts.set(watch.hostname, (accounts.get(watch.hostname) ?? new Set()).add(watch.accountId));
      next.push({ ...watch, at: new Date(now.getTime() + watch.recrawlDays * DAY_MS) });
    }
    const day = now.toISOString().slice(0, 10);
    await this.db.transaction(async (m) => {
      for (const [host, ids] of accounts) {
        const payload: SiteRefreshPayload = { host, monitorAccounts: [...ids].sort((a, b) => a - b) };
        await this.queue.enqueue(m, JobKinds.siteIndex, payload, { uniqueKey: `monitor:${host}:${day}` });
      }
      for (const watch of next) await this.watches.setNextCrawl(m, watch.monitorId, watch.hostname, watch.at);
    });
    return { watched: [...accounts.keys()] };
  }
}
