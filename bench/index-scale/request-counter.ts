/**
 * Requests per key (a host name, an address) per wall-clock second, keeping only the current
 * second's count of each key and the most any key received in one second: the politeness bound
 * the crawler actually kept, observed from the servers' side.
 */
export class RequestCounter {
  private readonly current = new Map<string, { second: number; count: number }>();
  private most = { count: 0, key: '', second: 0 };
  total = 0;

  count(key: string, now = Date.now()): void {
    this.total++;
    const second = Math.floor(now / 1000);
    let entry = this.current.get(key);
    if (!entry || entry.second !== second) {
      entry = { second, count: 0 };
      this.current.set(key, entry);
    }
    entry.count++;
    if (entry.count > this.most.count) this.most = { count: entry.count, key, second };
  }

  /** The most requests one key received within one second, and which key. */
  get busiest(): { count: number; key: string } {
    return { count: this.most.count, key: this.most.key };
  }

  /** Keys that received at least one request. */
  get keys(): number {
    return this.current.size;
  }

  reset(): void {
    this.current.clear();
    this.most = { count: 0, key: '', second: 0 };
    this.total = 0;
  }
}
