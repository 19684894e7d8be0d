/**
 * The domains already met in one import, kept as 64-bit hashes in an open-addressing table of
 * typed arrays (8 bytes a slot, at most half full): a million domains take about 16 MB, where a
 * Set of strings took hundreds (each string and its entry, plus the line buffers the strings kept
 * alive). Two different domains with the same 64-bit hash would make the later one count as a
 * duplicate; with a million domains the chance of that happening at all is about 3 in 100 million.
 */
export class SeenDomains {
  private high = new Uint32Array(1 << 16);
  private low = new Uint32Array(1 << 16);
  private count = 0;

  /** Adds the domain; false when it was there already. */
  add(domain: string): boolean {
    if ((this.count + 1) * 2 > this.high.length) this.grow();
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < domain.length; i++) {
      const c = domain.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    // Zero marks an empty slot: a hash that is all zeros is moved off it.
    h1 >>>= 0;
    h2 = h2 >>> 0 || 1;
    if (!this.place(h1, h2)) return false;
    this.count++;
    return true;
  }

  private place(h1: number, h2: number): boolean {
    const mask = this.high.length - 1;
    for (let slot = (h1 ^ h2) & mask; ; slot = (slot + 1) & mask) {
      if (this.low[slot] === 0) {
        this.high[slot] = h1;
        this.low[slot] = h2;
        return true;
      }
      if (this.high[slot] === h1 && this.low[slot] === h2) return false;
    }
  }

  private grow(): void {
    const [high, low] = [this.high, this.low];
    this.high = new Uint32Array(high.length * 2);
    this.low = new Uint32Array(low.length * 2);
    for (let slot = 0; slot < high.length; slot++) if (low[slot] !== 0) this.place(high[slot], low[slot]);
  }
}
