import type { ApiKeyRevokedEvent } from '../../platform/event-bus';
import { PerTickBatch } from '../../platform/per-tick-batch';
import type { KeyRevocationRepository } from '../../storage/key-revocation.repository';

interface Waiting {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The revocations this process has applied, as the highest id of key_revocations it has read
 * (every revocation writes a row there in its own transaction). `catchUp` reads the rows past it
 * and hands them to `apply`: the key cache drops those keys, the WebSocket server closes their
 * sessions, before the promise resolves.
 *
 * Each `catchUp` is answered by a read that started after it was called, so a revocation committed
 * before the call (by the admin CLI, by another process) is applied by the time it resolves.
 * - SQLite (`batched` false): the read runs in-process, a prepared statement on the primary key
 *   that finds no row in the usual case, in the turn `exclusive` gives it (Database.exclusive:
 *   never inside another transaction on the one connection, whose snapshot may predate the
 *   revocation).
 * - MariaDB/MySQL (`batched` true): the calls of one turn of the event loop share one read, sent
 *   in the loop's check phase, and the calls that arrive while it is in flight share the next one
 *   (as the usage meter's batches do): a round trip per batch of requests, not per request.
 */
export class KeyRevocations {
  /** Highest key_revocations id applied; null until the first read. */
  private seen: number | null = null;
  /** Calls waiting for the next read (batched): one read in flight at a time. */
  private readonly waiting = new PerTickBatch<Waiting>((batch) => this.readFor(batch), {
    maxInFlight: () => 1,
  });
  /** Reads of key_revocations made so far (a figure for tests and benches). */
  reads = 0;

  constructor(
    private readonly log: KeyRevocationRepository,
    private readonly batched: boolean,
    private readonly apply: (revoked: ApiKeyRevokedEvent[]) => void,
    private readonly exclusive: (read: () => Promise<void>) => Promise<void> = (read) => read(),
  ) {}

  /** Resolves once every revocation committed before this call has been applied. */
  catchUp(): Promise<void> {
    if (!this.batched) return this.exclusive(() => this.read());
    return new Promise((resolve, reject) => this.waiting.add({ resolve, reject }));
  }

  private readFor(batch: Waiting[]): Promise<void> {
    return this.read().then(
      () => batch.forEach((call) => call.resolve()),
      (error: unknown) => batch.forEach((call) => call.reject(error)),
    );
  }

  /**
   * Resolves once this process has a starting point (the first read; at once afterwards). A key
   * cache must not keep a key read before it: a revocation between that read and the starting
   * point would count as seen without ever having been applied.
   */
  ready(): Promise<void> {
    return this.seen === null ? this.catchUp() : Promise.resolve();
  }

  private async read(): Promise<void> {
    this.reads++;
    if (this.seen === null) {
      // Revocations before now are on their keys' rows (revoked_at), which every read of a key sees.
      this.seen = Math.max(this.seen ?? 0, await this.log.latestId());
      return;
    }
    const rows = await this.log.after(this.seen);
    if (rows.length === 0) return;
    this.seen = Math.max(this.seen, rows[rows.length - 1].id);
    this.apply(rows.map(({ keyId, accountId }) => ({ keyId, accountId })));
  }
}
