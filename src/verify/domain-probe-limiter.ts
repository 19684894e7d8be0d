export interface DomainProbeLimiterOptions {
  /** At most this many probes of one domain at a time. */
  concurrency: number;
  /** At least this many milliseconds between the starts of two probes of one domain. */
  minIntervalMs: number;
}

interface DomainState {
  active: number;
  lastStart: number;
  queue: { start: () => void }[];
  timer: NodeJS.Timeout | null;
}

/**
 * Limits SMTP probes per destination domain so the service never hammers one mail server:
 * mail servers answer bursts from one client with tarpitting, greylisting or a blocklist entry,
 * which would also spoil the answers of every later verification.
 */
export class DomainProbeLimiter {
  private readonly domains = new Map<string, DomainState>();

  constructor(private readonly options: DomainProbeLimiterOptions) {}

  /**
   * Runs `task` once `domain` has a free slot. Rejects with the signal's reason, without running
   * the task, when the signal aborts while waiting.
   */
  async run<T>(domain: string, signal: AbortSignal, task: () => Promise<T>): Promise<T> {
    await this.acquire(domain, signal);
    try {
      return await task();
    } finally {
      this.release(domain);
    }
  }

  private acquire(domain: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const state = this.stateOf(domain);
    return new Promise((resolve, reject) => {
      const waiter = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        state.queue = state.queue.filter((queued) => queued !== waiter);
        this.forgetIfIdle(domain, state);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      state.queue.push(waiter);
      // Whatever timer is pending (spacing or forgetting), pump computes the wait anew.
      if (state.timer) {
        clearTimeout(state.timer);
        state.timer = null;
      }
      this.pump(domain, state);
    });
  }

  private release(domain: string): void {
    const state = this.domains.get(domain);
    if (!state) return;
    state.active--;
    this.pump(domain, state);
  }

  /** Starts queued probes while a slot is free and the spacing allows, else waits for the spacing. */
  private pump(domain: string, state: DomainState): void {
    while (state.queue.length > 0 && state.active < this.options.concurrency && !state.timer) {
      const wait = state.lastStart + this.options.minIntervalMs - Date.now();
      if (wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = null;
          this.pump(domain, state);
        }, wait);
        return;
      }
      state.active++;
      state.lastStart = Date.now();
      state.queue.shift()?.start();
    }
    this.forgetIfIdle(domain, state);
  }

  /**
   * Drops the state of a domain nobody waits for once its spacing has passed (keeping it until
   * then keeps the spacing), so the map does not grow with every domain ever verified.
   */
  private forgetIfIdle(domain: string, state: DomainState): void {
    if (state.active > 0 || state.queue.length > 0 || state.timer) return;
    const wait = state.lastStart + this.options.minIntervalMs - Date.now();
    if (wait <= 0) {
      this.domains.delete(domain);
      return;
    }
    state.timer = setTimeout(() => {
      state.timer = null;
      if (state.active === 0 && state.queue.length === 0) this.domains.delete(domain);
      else this.pump(domain, state);
    }, wait);
    state.timer.unref();
  }

  private stateOf(domain: string): DomainState {
    let state = this.domains.get(domain);
    if (!state) {
      state = { active: 0, lastStart: -Infinity, queue: [], timer: null };
      this.domains.set(domain, state);
    }
    return state;
  }

  /** Domains with probes running or waiting, or whose spacing has not passed yet. */
  get trackedDomains(): number {
    return this.domains.size;
  }
}
