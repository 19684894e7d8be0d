/**
 * Values kept in memory while their version holds: a key's value is used while the version the
 * caller has just read (e.g. from the site row) equals the one it was stored with, and loaded again
 * otherwise. At most `maxEntries` keys, the least recently used out first (a Map keeps insertion
 * order, and each use re-inserts its key).
 */
export class VersionedCache<K, V> {
  private readonly entries = new Map<K, { version: string; value: V }>();

  constructor(private readonly maxEntries: number) {}

  async get(key: K, version: string, load: () => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (entry?.version !== version) entry = { version, value: await load() };
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry.value;
  }
}
