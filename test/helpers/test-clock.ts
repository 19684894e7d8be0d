import type { RateLimitClock } from '../../src/services/platform/rate-limiter';

/**
 * The clock a test service's per-key rate limits read (Services.rateLimitClock): the real time
 * plus what the test moved it by. A test of a limit freezes it, so that a burst falls in one
 * instant whatever the machine's load, and moves it through a window with `advance` instead of
 * sleeping; other tests leave it running.
 */
export class TestClock implements RateLimitClock {
  private offsetMs = 0;
  private frozenAt: number | null = null;

  now(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  /** Moves the clock on by `ms` (a frozen one too): calls older than a window leave it. */
  advance(ms: number): void {
    if (this.frozenAt !== null) this.frozenAt += ms;
    else this.offsetMs += ms;
  }

  /** Stops the clock where it is: from now on only `advance` moves it. */
  freeze(): void {
    this.frozenAt = this.now();
  }

  /** Lets a frozen clock run again from where it stands (it never goes back). */
  resume(): void {
    if (this.frozenAt === null) return;
    this.offsetMs = this.frozenAt - Date.now();
    this.frozenAt = null;
  }
}
