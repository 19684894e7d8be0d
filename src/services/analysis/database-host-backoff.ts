import type { HostBackoffStore } from '../../fetch/host-backoff';
import type { Database } from '../../storage/database';
import { HostBackoffRepository } from '../../storage/host-backoff.repository';
import { rawSqlOf } from '../../storage/raw-sql';
import { logger } from '../../platform/logger';

export interface DatabaseHostBackoffOptions {
  /**
   * How long an answer read from the table is trusted: the crawler asks before every page, and a
   * crawl of 25 pages should not cost 25 queries. Another worker's new back-off reaches this one
   * at most this much later (a blocked host is known at once: it stays blocked until its time).
   */
  readCacheMs?: number;
  /** Rows past their time are deleted at most this often (by whichever worker writes one). */
  purgeEveryMs?: number;
  now?: () => number;
}

/** Entries kept in the read cache before stale ones are swept. */
const CACHE_SWEEP_AT = 10_000;

/**
 * Hosts that answered 429/503, shared through the database (host_backoffs) by every worker on it:
 * the store used without REDIS_URL, so worker processes on one MariaDB (or one SQLite file) honour
 * a Retry-After any of them was told. A failing database never stops a crawl: the host is then
 * treated as not backed off (and this process's own back-offs are still kept in its cache).
 */
export class DatabaseHostBackoff implements HostBackoffStore {
  private readonly rows: HostBackoffRepository;
  private readonly cache = new Map<string, { until: number; readAt: number }>();
  private readonly readCacheMs: number;
  private readonly purgeEveryMs: number;
  private readonly now: () => number;
  private lastPurge = 0;

  constructor(db: Database, options: DatabaseHostBackoffOptions = {}) {
    this.rows = new HostBackoffRepository(rawSqlOf(db), db.dialect);
    this.readCacheMs = options.readCacheMs ?? 2_000;
    this.purgeEveryMs = options.purgeEveryMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  async blockedUntil(host: string): Promise<number> {
    const key = host.toLowerCase();
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached && (cached.until > now || now - cached.readAt < this.readCacheMs))
      return cached.until > now ? cached.until : 0;
    const until = await this.rows.until(key).catch((error: unknown) => {
      logger.warn({ err: error, host: key }, 'could not read the host back-off; asking the host');
      return cached?.until ?? 0;
    });
    this.remember(key, until, now);
    return until > now ? until : 0;
  }

  async backOff(host: string, untilMs: number): Promise<void> {
    const key = host.toLowerCase();
    const now = this.now();
    this.remember(key, Math.max(untilMs, this.cache.get(key)?.until ?? 0), now);
    try {
      await this.rows.backOff(key, untilMs);
      if (now - this.lastPurge >= this.purgeEveryMs) {
        this.lastPurge = now;
        await this.rows.purgeBefore(now);
      }
    } catch (error) {
      logger.warn({ err: error, host: key }, 'could not store the host back-off; other workers may ask it');
    }
  }

  private remember(key: string, until: number, readAt: number): void {
    if (this.cache.size >= CACHE_SWEEP_AT) {
      for (const [name, entry] of this.cache)
        if (entry.until <= readAt && readAt - entry.readAt >= this.readCacheMs) this.cache.delete(name);
      // Still full of live entries (a burst of busy hosts): the table holds them all anyway.
      if (this.cache.size >= CACHE_SWEEP_AT) this.cache.clear();
    }
    this.cache.set(key, { until, readAt });
  }
}
