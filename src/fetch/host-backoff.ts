/**
 * Hosts that asked us to wait (HTTP 429 or 503 with Retry-After): until when each is left alone.
 * In process memory by default; in Redis (src/redis/redis-host-backoff.ts) with REDIS_URL, so every
 * worker honours a wait another worker was told of.
 */
export interface HostBackoffStore {
  /** Epoch ms until which `host` must not be asked anything; 0 when it may be. */
  blockedUntil(host: string): Promise<number>;
  /** Leaves `host` alone until `untilMs` (a later time already recorded is kept). */
  backOff(host: string, untilMs: number): Promise<void>;
}

/** Entries kept before expired ones are swept. */
const SWEEP_AT = 10_000;

export class MemoryHostBackoff implements HostBackoffStore {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async blockedUntil(host: string): Promise<number> {
    const until = this.until.get(host) ?? 0;
    return until > this.now() ? until : 0;
  }

  async backOff(host: string, untilMs: number): Promise<void> {
    if (this.until.size >= SWEEP_AT) {
      const now = this.now();
      for (const [name, until] of this.until) if (until <= now) this.until.delete(name);
    }
    this.until.set(host, Math.max(untilMs, this.until.get(host) ?? 0));
  }
}

/** Longest wait honoured: a Retry-After of days is read as this (the job's retry covers the rest). */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;
/** A 429/503 without a readable Retry-After still backs the host off this long. */
export const DEFAULT_BACKOFF_MS = 60_000;

/** Retry-After as delay-seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}
