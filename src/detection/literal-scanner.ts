/**
 * One-pass, case-insensitive multi-literal scan: an anchored hash filter (as in Rabin-Karp and
 * Hyperscan's FDR). Each literal of 4+ characters is filed under one of its 4-character windows, the
 * one rarest among all literals' windows; shorter literals are filed whole in a small table of their
 * own. The scan hashes the window ending at every character and probes a bit table (one bit per
 * slot, small enough to stay in the cache); it notes the hits of a batch of characters and then
 * compares the few literals filed there, clearing a slot for the rest of the scan once all of its
 * literals are found.
 *
 * It replaced a full Aho-Corasick DFA: that one scanned a little faster but its transition tables
 * for every literal were slow and large to build on the start-up path (figures in
 * docs/performance.md); this one builds from typed arrays. Each text position costs O(literals filed under its
 * window), and choosing the rarest window keeps those buckets to a handful.
 */
const HASH = 0x9e3779b1;
const LONG_BITS = 18;
/**
 * Tables get about 32 slots per literal (up to the bits above), so a probe rarely hits a wrong slot;
 * a kind with a hundred literals needs no quarter-million-slot table (each costs milliseconds to build
 * on a cold start).
 */
const SLOTS_PER_LITERAL_BITS = 5;
const MIN_BITS = 8;
/** Literals under 4 characters are few (a few dozen): a table that stays in the L1 cache. */
const SHORT_BITS = 12;
/** Characters probed before the hits are compared (the hit buffer holds a batch's worst case). */
const BATCH = 1024;

/** Literals filed by the hash of one window each. */
interface Buckets {
  readonly shift: number;
  /** Bit h set when some literal is filed under hash h. */
  readonly bits: Int32Array;
  /**
   * Entries start[h]..stop[h] of `entries` (pairs: literal id, offset where its window ends), valid
   * where flags[h] is set: filling them takes one pass over the literals, not over the table.
   */
  readonly start: Int32Array;
  readonly stop: Int32Array;
  readonly entries: Int32Array;
}

export class LiteralScanner {
  /** Character code → the lowercase code literals use, 0 for a character no literal contains. */
  private readonly fold: Uint16Array;
  private readonly long: Buckets;
  private readonly short: Buckets | null;
  /** Masks of the short window lengths in use (0xffffff for 3 characters, ...). */
  private readonly shortMasks: number[];
  /** Probe hits of one batch: position and hash (bitwise not for the short table), in pairs. */
  private readonly hits = new Int32Array(BATCH * 2 * 4);

  constructor(readonly literals: readonly string[]) {
    const fold = new Uint16Array(65536);
    const alphabet: number[] = [];
    for (const literal of literals) {
      for (let i = 0; i < literal.length; i++) {
        const code = literal.charCodeAt(i);
        if (fold[code] === 0) {
          fold[code] = code;
          alphabet.push(code);
        }
      }
    }
    // The upper-case form of every alphabet character matches it (literals are lowercase).
    for (const code of alphabet) {
      const upper = String.fromCharCode(code).toUpperCase();
      if (upper.length === 1 && fold[upper.charCodeAt(0)] === 0) fold[upper.charCodeAt(0)] = code;
    }
    const longIds: number[] = [];
    const shortIds: number[] = [];
    const shortLengths = new Set<number>();
    literals.forEach((literal, id) => {
      if (literal.length >= 4) longIds.push(id);
      else if (literal.length > 0) {
        shortIds.push(id);
        shortLengths.add(literal.length);
      }
    });
    this.fold = fold;
    this.long = fileLiterals(literals, longIds, LONG_BITS);
    this.short = shortIds.length ? fileLiterals(literals, shortIds, SHORT_BITS) : null;
    this.shortMasks = [...shortLengths].map((length) => 2 ** (8 * length) - 1);
  }

  /** Sets found[id] = 1 for every literal that occurs in text; returns how many new ones it found. */
  scan(text: string, found: Uint8Array): number {
    // A slot whose literals are all found is cleared for the rest of the scan, so a window the text
    // repeats (a tag name, a common path) is compared once, not at every occurrence. The slots are
    // cleared in the shared tables and set again when the scan ends (a scan runs to its end without
    // yielding, so no other scan sees them cleared): no copy of a table per scan.
    this.clearedCount = 0;
    try {
      return this.scanWithClearing(text, found);
    } finally {
      this.restoreCleared();
    }
  }

  /** Slots cleared during the current scan: hash for the long table, bitwise not for the short one. */
  private cleared = new Int32Array(64);
  private clearedCount = 0;

  private clear(bits: Int32Array, h: number, note: number): void {
    bits[h >>> 5] &= ~(1 << (h & 31));
    if (this.clearedCount === this.cleared.length) {
      const grown = new Int32Array(this.cleared.length * 2);
      grown.set(this.cleared);
      this.cleared = grown;
    }
    this.cleared[this.clearedCount++] = note;
  }

  private restoreCleared(): void {
    const { long, short, cleared } = this;
    for (let k = 0; k < this.clearedCount; k++) {
      const note = cleared[k];
      const bits = note >= 0 ? long.bits : (short as Buckets).bits;
      const h = note >= 0 ? note : ~note;
      bits[h >>> 5] |= 1 << (h & 31);
    }
    this.clearedCount = 0;
  }

  private scanWithClearing(text: string, found: Uint8Array): number {
    const { fold, long, short, shortMasks } = this;
    const longBits = long.bits;
    const longShift = long.shift;
    const shortBits = short ? short.bits : longBits;
    const shortShift = short ? short.shift : longShift;
    // One short length (the usual case) is probed without a loop; no short literals, no probe.
    const masks = short ? shortMasks : [];
    const shortMask = masks.length === 1 ? masks[0] : -1;
    // The probe loop only notes where a slot is set (position and hash, long and short apart); the
    // comparisons run per batch, so the loop stays a few instructions per character.
    const hits = this.hits;
    let window = 0;
    let count = 0;
    for (let from = 0; from < text.length; from += BATCH) {
      const to = Math.min(text.length, from + BATCH);
      let n = 0;
      for (let i = from; i < to; i++) {
        // The last four folded characters, 8 bits each (collisions only cost a comparison).
        window = (window << 8) | (fold[text.charCodeAt(i)] & 0xff);
        const h = Math.imul(window, HASH) >>> longShift;
        if ((longBits[h >>> 5] & (1 << (h & 31))) !== 0) {
          hits[n++] = i;
          hits[n++] = h;
        }
        if (shortMask >= 0) {
          const hs = Math.imul(window & shortMask, HASH) >>> shortShift;
          if ((shortBits[hs >>> 5] & (1 << (hs & 31))) !== 0) {
            hits[n++] = i;
            hits[n++] = ~hs;
          }
        } else {
          for (let m = 0; m < masks.length; m++) {
            const hs = Math.imul(window & masks[m], HASH) >>> shortShift;
            if ((shortBits[hs >>> 5] & (1 << (hs & 31))) !== 0) {
              hits[n++] = i;
              hits[n++] = ~hs;
            }
          }
        }
      }
      for (let k = 0; k < n; k += 2) {
        const h = hits[k + 1];
        if (h >= 0) {
          if ((longBits[h >>> 5] & (1 << (h & 31))) === 0) continue;
          const result = this.verify(long, h, text, hits[k], found, 4);
          count += result >>> 1;
          if ((result & 1) !== 0) this.clear(longBits, h, h);
        } else if (short !== null) {
          const hs = ~h;
          if ((shortBits[hs >>> 5] & (1 << (hs & 31))) === 0) continue;
          const result = this.verify(short, hs, text, hits[k], found, 0);
          count += result >>> 1;
          if ((result & 1) !== 0) this.clear(shortBits, hs, ~hs);
        }
      }
    }
    return count;
  }

  /**
   * Compares the literals filed under hash h with the text around position i (their window's end):
   * twice the number of literals newly found, plus 1 when every literal filed there is found.
   */
  private verify(buckets: Buckets, h: number, text: string, i: number, found: Uint8Array, q: number): number {
    const { fold, literals } = this;
    const entries = buckets.entries;
    let count = 0;
    let pending = false;
    for (let k = buckets.start[h] * 2, to = buckets.stop[h] * 2; k < to; k += 2) {
      const id = entries[k];
      if (found[id] !== 0) continue;
      const literal = literals[id];
      // Short literals share a table whatever their length: the window must be the whole literal.
      if (q === 0 && entries[k + 1] !== literal.length) {
        pending = true;
        continue;
      }
      const start = i + 1 - entries[k + 1];
      let j = 0;
      if (start >= 0 && start + literal.length <= text.length)
        while (j < literal.length && fold[text.charCodeAt(start + j)] === literal.charCodeAt(j)) j++;
      if (j === literal.length) {
        found[id] = 1;
        count++;
      } else pending = true;
    }
    return count * 2 + (pending ? 0 : 1);
  }
}

/**
 * Files each literal under the hash of one window (4 characters, or the whole literal when shorter),
 * choosing the window whose hash is rarest among all the literals' windows.
 */
function fileLiterals(literals: readonly string[], ids: readonly number[], maxBits: number): Buckets {
  const hashBits = Math.min(
    maxBits,
    Math.max(MIN_BITS, Math.ceil(Math.log2(ids.length + 1)) + SLOTS_PER_LITERAL_BITS),
  );
  const size = 1 << hashBits;
  const shift = 32 - hashBits;
  const frequency = new Uint16Array(size);
  for (const id of ids) {
    const literal = literals[id];
    const q = Math.min(4, literal.length);
    // The window rolls as the scan's does (one character in, one out): 8 bits per character.
    let window = 0;
    for (let i = 0; i < literal.length; i++) {
      window = (window << 8) | (literal.charCodeAt(i) & 0xff);
      if (i + 1 < q) continue;
      const h = Math.imul(q === 4 ? window : window & windowMask(q), HASH) >>> shift;
      if (frequency[h] < 0xffff) frequency[h]++;
    }
  }
  const anchorHash = new Int32Array(ids.length);
  const anchorEnd = new Int32Array(ids.length);
  // stop[] counts each bucket's literals first, then serves as the fill cursor.
  const start = new Int32Array(size);
  const stop = new Int32Array(size);
  for (let n = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    const q = Math.min(4, literal.length);
    let best = -1;
    let window = 0;
    for (let i = 0; i < literal.length; i++) {
      window = (window << 8) | (literal.charCodeAt(i) & 0xff);
      if (i + 1 < q) continue;
      const h = Math.imul(q === 4 ? window : window & windowMask(q), HASH) >>> shift;
      if (best < 0 || frequency[h] < frequency[anchorHash[n]]) {
        best = i + 1;
        anchorHash[n] = h;
      }
    }
    anchorEnd[n] = best;
    stop[anchorHash[n]]++;
  }
  const flags = new Uint8Array(size);
  let next = 0;
  for (let n = 0; n < ids.length; n++) {
    const h = anchorHash[n];
    if (flags[h] !== 0) continue;
    flags[h] = 1;
    start[h] = next;
    next += stop[h];
    stop[h] = start[h];
  }
  const bits = new Int32Array(Math.max(1, size >>> 5));
  for (let h = 0; h < size; h++) if (flags[h] !== 0) bits[h >>> 5] |= 1 << (h & 31);
  const entries = new Int32Array(ids.length * 2);
  for (let n = 0; n < ids.length; n++) {
    const at = stop[anchorHash[n]]++ * 2;
    entries[at] = ids[n];
    entries[at + 1] = anchorEnd[n];
  }
  return { shift, bits, start, stop, entries };
}

/** The bits of the last q characters of a rolling window (8 bits each). */
function windowMask(q: number): number {
  return q === 1 ? 0xff : q === 2 ? 0xffff : 0xffffff;
}
