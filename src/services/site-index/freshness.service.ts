import { Database } from '../../storage/database';
import { SiteEntity } from '../../storage/entities';
import { SiteIndexRepository } from '../../storage/site-index.repository';
import { JobKinds } from '../../jobs/job-kinds';
import { JobQueue } from '../../jobs/job-queue';
import type { HostBackoffStore } from '../../fetch/host-backoff';

export interface FreshnessSettings {
  /** A site last analysed longer ago than this is re-analysed; 0 turns re-analysis off. */
  recrawlAfterDays: number;
  /** Sites scheduled per run (the worker runs once a minute). */
  perRun: number;
  /** Hosts that asked every worker to wait (429/503): their re-crawl is scheduled after the wait. */
  hostBackoff?: HostBackoffStore;
}

const DAY_MS = 86_400_000;

/** A site.index job that refreshes a known site, by the host the index keys it by. */
export interface SiteRefreshPayload {
  host: string;
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

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
    private readonly settings: FreshnessSettings,
  ) {
    this.index = new SiteIndexRepository(db);
  }

  async scheduleStale(now = new Date()): Promise<{ scheduled: string[] }> {
    if (this.settings.recrawlAfterDays <= 0 || this.settings.perRun <= 0) return { scheduled: [] };
    const staleBefore = new Date(now.getTime() - this.settings.recrawlAfterDays * DAY_MS);
    const triedBefore = new Date(now.getTime() - DAY_MS);
    const sites = await this.index.staleSites(staleBefore, triedBefore, this.settings.perRun);
    if (sites.length === 0) return { scheduled: [] };
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
    return { scheduled: sites.map((s) => s.hostname) };
  }
}
