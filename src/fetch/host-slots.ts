/**
 * Requests in flight per host, across every crawl that shares the store (HOST_CONCURRENCY): each
 * request of the HTTP client (page, asset, robots.txt, every redirect hop) holds one slot of its
 * host while it runs. In process memory by default (one process's crawls share it); in Redis
 * (src/redis/redis-host-slots.ts) with REDIS_URL, shared by every worker, with leases that expire
 * so a crashed worker cannot keep a slot.
 */
export interface HostSlots {
  /** Waits for a free slot of `host`; resolves with its release. Rejects when `signal` aborts first. */
  acquire(host: string, signal?: AbortSignal): Promise<() => Promise<void>>;
}

interface HostQueue {
  busy: number;
  waiting: (() => void)[];
}

export class MemoryHostSlots implements HostSlots {
  private readonly hosts = new Map<string, HostQueue>();

  constructor(private readonly limit: number) {}

  async acquire(host: string, signal?: AbortSignal): Promise<() => Promise<void>> {
    const key = host.toLowerCase();
    let queue = this.hosts.get(key);
    if (!queue) this.hosts.set(key, (queue = { busy: 0, waiting: [] }));
    if (queue.busy >= this.limit) await this.wait(queue, signal);
    else queue.busy++;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const next = queue.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next waiter
      else if (--queue.busy === 0) this.hosts.delete(key);
    };
  }

  private wait(queue: HostQueue, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      signal?.throwIfAborted();
      const granted = (): void => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = (): void => {
        const at = queue.waiting.indexOf(granted);
        if (at >= 0) queue.waiting.splice(at, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', aborted, { once: true });
      queue.waiting.push(granted);
    });
  }
}

/** Sleeps `ms`, or less when `signal` aborts (then rejects with its reason). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    const aborted = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
