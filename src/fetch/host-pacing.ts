import { pause } from './host-slots';

/**
 * Requests per second per host (HOST_REQUESTS_PER_SECOND), across every crawl that shares the
 * pacer: no host is sent more than that many requests in any one-second window. Each request of
 * the HTTP client (page, asset, robots.txt, every redirect hop) reserves the first moment at which
 * it stays within the bound, and waits for it. HOST_CONCURRENCY bounds requests in flight; on a host
 * that answers in a few milliseconds that alone would let hundreds of requests a second through.
 * A window rather than an even spacing: the few requests of a small site go at once (a crawl is
 * not slowed where the host cannot tell), a larger crawl is held to the rate. In process memory by
 * default; in Redis (src/redis/redis-host-pacer.ts) with REDIS_URL, shared by every worker.
 */
export interface HostPacer {
  /** Waits until a request to `host` may be sent. Rejects when `signal` aborts first. */
  wait(host: string, signal?: AbortSignal): Promise<void>;
}

/** The time source of a pacer: tests move a clock instead of sleeping. */
export interface PacerClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemPacerClock: PacerClock = { now: () => Date.now(), sleep: pause };

/**
 * The window the rate is counted in: a second and a tenth. A request reserved at the end of one
 * window may reach the host sooner after one reserved at its start than their reservations were
 * apart (connection set-up, event-loop delay, two workers), and the host counts by its own clock:
 * with a bare second a host saw 11 requests in one of its seconds at a rate of 10.
 */
export const PACING_WINDOW_MS = 1100;

/** Hosts remembered before those idle for a window are swept. */
const SWEEP_AT = 10_000;

export class MemoryHostPacer implements HostPacer {
  /** Per host, the moments reserved within the last window, oldest first (at most the rate). */
  private readonly sent = new Map<string, number[]>();

  constructor(
    private readonly requestsPerSecond: number,
    private readonly clock: PacerClock = systemPacerClock,
  ) {}

  async wait(host: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const key = host.toLowerCase();
    const now = this.clock.now();
    if (this.sent.size >= SWEEP_AT)
      for (const [name, times] of this.sent)
        if (times[times.length - 1] + PACING_WINDOW_MS <= now) this.sent.delete(name);
    let times = this.sent.get(key);
    if (!times) this.sent.set(key, (times = []));
    // The reservation is made at once (before waiting), so concurrent requests queue up in order;
    // reservations only move forward, so the oldest of the last `rate` decides.
    const at = times.length < this.requestsPerSecond ? now : Math.max(now, times[0] + PACING_WINDOW_MS);
    times.push(at);
    if (times.length > this.requestsPerSecond) times.shift();
    if (at > now) await this.clock.sleep(at - now, signal);
  }
}
