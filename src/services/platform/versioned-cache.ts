/** How much a cache may hold: a number of keys, or an estimate of the bytes its values take. */
export type CacheBound<V> = number | { maxBytes: number; weigh: (value: V) => number };

/**
 * Values kept in memory while their version holds: a key's value is used while the version the
 * caller has just read (e.g. from the site row) equals the one it was stored with, and loaded again
 * otherwise. Bounded by a number of keys or by the estimated bytes of the values (`weigh`, called
 * once per value loaded): values differ in size by a factor of a hundred (a site with two
 * technologies and one with two hundred), so a count that is safe for large values wastes the
 * memory on small ones. The least recently used out first (a Map keeps insertion order, and each
 * use re-inserts its key).
 */
export class VersionedCache<K, V> {
  private readonly entries = new Map<K, { version: string; value: V; bytes: number }>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly weigh: (value: V) => number;

  constructor(bound: CacheBound<V>) {
    if (typeof bound === 'number') {
      this.maxEntries = bound;
      this.maxBytes = Infinity;
      this.weigh = () => 0;
    } else {
      this.maxEntries = Infinity;
      this.maxBytes = bound.maxBytes;
      this.weigh = bound.weigh;
    }
  }

  /** Keys held now. */
  get size(): number {
    return this.entries.size;
  }

  /** The estimated bytes of the values held now (0 when bounded by keys). */
  get heldBytes(): number {
    return this.bytes;
  }

  async get(key: K, version: string, load: () => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (entry?.version !== version) {
      const value = await load();
      entry = { version, value, bytes: this.weigh(value) };
    }
    const held = this.entries.get(key);
    if (held) {
      this.entries.delete(key);
      this.bytes -= held.bytes;
    }
    // A value larger than the whole budget is answered but not kept.
    if (entry.bytes > this.maxBytes) return entry.value;
    while (
      this.entries.size > 0 &&
      (this.entries.size >= this.maxEntries || this.bytes + entry.bytes > this.maxBytes)
    ) {
      const [oldest, dropped] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.bytes -= dropped.bytes;
    }
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    return entry.value;
  }
}
