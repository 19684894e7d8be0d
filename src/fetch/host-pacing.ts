import { abortable } from '../platform/abortable';
import { pause } from './host-slots';

/**
 * Requests per second per host (HOST_REQUESTS_PER_SECOND), across every crawl that shares the
 * pacer: no host is sent more than that many requests in any one-second window. Each request of
 * the HTTP client (page, asset, robots.txt, every redirect hop) waits for the first moment at which
 * it stays within the bound; a wait that ended late (a stalled event loop) is checked again, so a
 * stall never lets go at once the requests it held up. HOST_CONCURRENCY bounds requests in flight;
 * on a host that answers in a few milliseconds that alone would let hundreds of requests a second through.
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

/** A host's pacing: when requests were let go (the last `rate`, oldest first), and its queue. */
interface HostQueue {
  sent: number[];
  /** Settles when the last request queued for the host has been let go (or given up). */
  tail: Promise<void>;
  waiting: number;
}

export class MemoryHostPacer implements HostPacer {
  private readonly hosts = new Map<string, HostQueue>();

  constructor(
    private readonly requestsPerSecond: number,
    private readonly clock: PacerClock = systemPacerClock,
  ) {}

  wait(host: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const key = host.toLowerCase();
    if (this.hosts.size >= SWEEP_AT) this.sweep(this.clock.now());
    const queue = this.hosts.get(key) ?? { sent: [], tail: Promise.resolve(), waiting: 0 };
    this.hosts.set(key, queue);
    queue.waiting++;
    // Requests of a host are let go in the order they asked, one decision at a time.
    const turn = queue.tail.then(() => (signal?.aborted ? undefined : this.letGo(queue, signal)));
    queue.tail = turn.catch(() => undefined).finally(() => void queue.waiting--);
    return signal ? abortable(turn, signal) : turn;
  }

  /**
   * Lets the request go once sending it keeps the host within the rate, counted on the moments
   * requests were actually let go: a request whose sleep ended late (a stalled event loop) looks
   * again at the window as it is then, so a stall never releases the requests it held up at once.
   */
  private async letGo(queue: HostQueue, signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.clock.now();
      const { sent } = queue;
      if (sent.length < this.requestsPerSecond || now >= sent[0] + PACING_WINDOW_MS) {
        sent.push(now);
        if (sent.length > this.requestsPerSecond) sent.shift();
        return;
      }
      await this.clock.sleep(sent[0] + PACING_WINDOW_MS - now, signal);
    }
  }

  private sweep(now: number): void {
    for (const [name, queue] of this.hosts) {
      const last = queue.sent[queue.sent.length - 1] ?? 0;
      if (queue.waiting === 0 && last + PACING_WINDOW_MS <= now) this.hosts.delete(name);
    }
  }
}
