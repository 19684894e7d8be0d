export interface VerificationResultCacheOptions {
  /** Entries beyond this evict the least recently used one. */
  maxEntries: number;
  /** Milliseconds clock; tests pass a controllable one. */
  now?: () => number;
}

/**
 * A bounded in-process cache with a time to live per entry. Least recently used entries go
 * first (a Map keeps insertion order, and a hit re-inserts its key), so a burst of one-off
 * addresses cannot grow memory without bound.
 */
export class VerificationResultCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private readonly now: () => number;

  constructor(private readonly options: VerificationResultCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** A ttl of 0 (or less) stores nothing. */
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (ttlMs <= 0 || this.options.maxEntries <= 0) return;
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
