/** How a PerTickBatch sends its items. */
export interface PerTickBatchOptions {
  /** The most items one call of `send` gets (the rest go in further calls of the same turn). */
  maxItems?: number;
  /**
   * The most calls of `send` unsettled at once; items added meanwhile wait and go together as soon
   * as one settles. Read at every turn, so it may follow something that changes (a script runner's
   * capacity).
   */
  maxInFlight?: () => number;
}

import { logger } from './logger';

/**
 * Items added during one turn of the event loop, sent together in the loop's check phase
 * (setImmediate): one round trip for every request that reached the same point together, instead
 * of one each. The one way this service batches per tick (events to Redis, rate-limit calls, site
 * rows, metering charges, revocation reads).
 *
 * `send` settles its own items (each item carries what it needs: a resolver, a payload) and
 * reports its own failures; the batch only counts a rejected `send` as settled, and logs one that
 * throws (a bug: its items are left unsettled) rather than let it end the process.
 */
export class PerTickBatch<Item> {
  private pending: Item[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly maxItems: number;
  private readonly maxInFlight: () => number;

  constructor(
    private readonly send: (items: Item[]) => Promise<unknown> | void,
    options: PerTickBatchOptions = {},
  ) {
    this.maxItems = options.maxItems ?? Number.POSITIVE_INFINITY;
    this.maxInFlight = options.maxInFlight ?? (() => Number.POSITIVE_INFINITY);
  }

  /** Items waiting for the next send. */
  get size(): number {
    return this.pending.length;
  }

  add(item: Item): void {
    this.pending.push(item);
    this.schedule();
  }

  /**
   * Sends what is waiting now rather than at the end of this turn (a process closing, whose last
   * turn may never come).
   */
  flush(): void {
    this.dispatch();
  }

  private schedule(): void {
    if (this.scheduled || this.pending.length === 0 || this.inFlight >= this.maxInFlight()) return;
    this.scheduled = true;
    setImmediate(() => this.dispatch());
  }

  private dispatch(): void {
    this.scheduled = false;
    while (this.pending.length > 0 && this.inFlight < this.maxInFlight()) {
      const items =
        this.pending.length <= this.maxItems ? this.pending : this.pending.slice(0, this.maxItems);
      this.pending = items === this.pending ? [] : this.pending.slice(this.maxItems);
      let sent: Promise<unknown> | void;
      try {
        sent = this.send(items);
      } catch (error) {
        logger.error({ err: error }, 'a per-tick batch could not be sent');
        continue;
      }
      if (!sent) continue;
      this.inFlight++;
      sent
        .catch(() => undefined)
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}
