import { LiteralProbe, PROBE_BATCH, SCREEN_HASH } from './literal-probe';

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
/**
 * Math.imul read once: under the test runner (code in a vm context) a `Math.imul` looked up in a hot
 * loop is not inlined and costs many times the loop's own work; read once, it costs nothing anywhere.
 */
const imul = Math.imul;
const HASH = 0x9e3779b1;
const LONG_BITS = 18;
/**
 * Tables get about 32 slots per literal (up to the bits above), so a probe rarely hits a wrong slot;
 * a kind with a hundred literals needs no quarter-million-slot table (each costs milliseconds to build
 * on a cold start).
 */
const SLOTS_PER_LITERAL_BITS = 5;
const MIN_BITS = 8;
/**
 * Literals under 4 characters are few (a few dozen) but probed with the shortest windows, those the
 * page text repeats most: about 500 slots per literal keep wrong-slot hits rare, and the table (8 KB
 * at most) still stays in the L1 cache.
 */
const SHORT_BITS = 16;
const SHORT_SLOTS_PER_LITERAL_BITS = 9;

/**
 * Literals filed by the hash of one window each, in a compact layout: checking a hit reads a few
 * neighbouring words rather than scattered per-slot arrays, the literal list and the strings.
 */
interface Buckets {
  readonly shift: number;
  /** Bit h set when some literal is filed under hash h (cleared during a scan once all are found). */
  readonly bits: Int32Array;
  /**
   * Per 32-bit word of the table, in pairs: the number of occupied slots before the word and the
   * word's bits as built (never cleared). An occupied slot's rank (its number among the occupied
   * slots) is the first plus the bits set below it in the second.
   */
  readonly ranks: Int32Array;
  /** The filed literals of the slot of rank r are at records[slotStart[r]..slotStart[r + 1]). */
  readonly slotStart: Int32Array;
  /**
   * One record per filed literal: its id, the offset where its window ends, its length, its window
   * packed as the scan packs it (8 bits per character), then its character codes.
   */
  readonly records: Int32Array;
}

const RECORD_ID = 0;
const RECORD_END = 1;
const RECORD_LENGTH = 2;
const RECORD_WINDOW = 3;
const RECORD_CHARS = 4;

export class LiteralScanner {
  /** Character code → the lowercase code literals use, 0 for a character no literal contains. */
  private readonly fold: Uint16Array;
  private readonly long: Buckets;
  private readonly short: Buckets | null;
  /** The probe loop, in WebAssembly; its memory holds the bit tables of `long` and `short`. */
  private readonly probe: LiteralProbe;

  constructor(readonly literals: readonly string[]) {
    const fold = foldTable(literals);
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
    const long = fileLiterals(literals, longIds, LONG_BITS, SLOTS_PER_LITERAL_BITS);
    const short = shortIds.length
      ? fileLiterals(literals, shortIds, SHORT_BITS, SHORT_SLOTS_PER_LITERAL_BITS)
      : null;
    this.probe = new LiteralProbe({
      fold,
      longWords: long.bits.length,
      longShift: long.shift,
      shortWords: short ? short.bits.length : 0,
      shortShift: short ? short.shift : 0,
      shortMasks: [...shortLengths].map(windowMask),
    });
    // The tables' bits live in the probe's memory, where the scan clears and restores them.
    this.probe.longBits.set(long.bits);
    fillScreen(long, this.probe.screenBits);
    this.long = { ...long, bits: this.probe.longBits };
    if (short) this.probe.shortBits.set(short.bits);
    this.short = short ? { ...short, bits: this.probe.shortBits } : null;
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
    const { long, short, probe } = this;
    const longBits = long.bits;
    const longShift = long.shift;
    // The probe only notes where a slot is set (position, bitwise not for the short table, and the
    // window probed, from which the slot is hashed again); the comparisons run per batch, so that a
    // slot cleared in one batch is no longer hit in the next.
    const hits = probe.hits;
    probe.reset();
    let count = 0;
    for (let chunk = 0; chunk < text.length; ) {
      const chunkEnd = probe.load(text, chunk);
      for (let from = chunk; from < chunkEnd; from += PROBE_BATCH) {
        const n = probe.probe(chunk, from, Math.min(chunkEnd, from + PROBE_BATCH));
        for (let k = 0; k < n; k += 2) {
          const at = hits[k];
          const hitWindow = hits[k + 1];
          if (at >= 0) {
            const h = imul(hitWindow, HASH) >>> longShift;
            if ((longBits[h >>> 5] & (1 << (h & 31))) === 0) continue;
            const result = this.verify(long, h, hitWindow, text, at, found);
            count += result >>> 1;
            if ((result & 1) !== 0) this.clear(longBits, h, h);
          } else if (short !== null) {
            const hs = imul(hitWindow, HASH) >>> short.shift;
            if ((short.bits[hs >>> 5] & (1 << (hs & 31))) === 0) continue;
            const result = this.verify(short, hs, hitWindow, text, ~at, found);
            count += result >>> 1;
            if ((result & 1) !== 0) this.clear(short.bits, hs, ~hs);
          }
        }
      }
      chunk = chunkEnd;
    }
    return count;
  }

  /**
   * Compares the literals filed under hash h with the text around position i (where the window
   * probed ends): twice the number of literals newly found, plus 1 when every literal filed there
   * is found.
   */
  private verify(
    buckets: Buckets,
    h: number,
    window: number,
    text: string,
    i: number,
    found: Uint8Array,
  ): number {
    const { fold } = this;
    const { ranks, slotStart, records } = buckets;
    const rank = rankOf(ranks, h);
    let count = 0;
    let pending = false;
    for (let record = slotStart[rank], to = slotStart[rank + 1]; record < to;) {
      const id = records[record + RECORD_ID];
      const length = records[record + RECORD_LENGTH];
      const chars = record + RECORD_CHARS;
      const anchorEnd = records[record + RECORD_END];
      const anchorWindow = records[record + RECORD_WINDOW];
      record = chars + length;
      if (found[id] !== 0) continue;
      // A window other than the literal's own (a hash collision; in the short table, also the window
      // of another length, whose own probe compares this literal at the same position) needs no
      // comparison of the characters.
      if (window !== anchorWindow) {
        pending = true;
        continue;
      }
      const start = i + 1 - anchorEnd;
      let j = 0;
      if (start >= 0 && start + length <= text.length)
        while (j < length && fold[text.charCodeAt(start + j)] === records[chars + j]) j++;
      if (j === length) {
        found[id] = 1;
        count++;
      } else pending = true;
    }
    return count * 2 + (pending ? 0 : 1);
  }
}

/**
 * Files each literal under the hash of one window (4 characters, or the whole literal when shorter),
 * choosing the window whose hash is rarest among all the literals' windows. This is on the start-up
 * path, mostly run before the JIT has optimized it: each loop is a function of its own, so that code
 * optimized while in one loop is not thrown away on reaching the next.
 */
function fileLiterals(
  literals: readonly string[],
  ids: readonly number[],
  maxBits: number,
  slotsPerLiteralBits: number,
): Buckets {
  const hashBits = Math.min(
    maxBits,
    Math.max(MIN_BITS, Math.ceil(Math.log2(ids.length + 1)) + slotsPerLiteralBits),
  );
  const shift = 32 - hashBits;
  const frequency = windowFrequencies(literals, ids, shift);
  const unsorted = new Int32Array(recordsLength(literals, ids));
  const anchorHash = new Int32Array(ids.length);
  writeRecords(literals, ids, frequency, shift, unsorted, anchorHash);
  const bits = new Int32Array(Math.max(1, (1 << hashBits) >>> 5));
  for (let n = 0; n < ids.length; n++) bits[anchorHash[n] >>> 5] |= 1 << (anchorHash[n] & 31);
  const ranks = rankTable(bits);
  const { slotStart, records } = sortBySlot(unsorted, anchorHash, ranks);
  return { shift, bits, ranks, slotStart, records };
}

/** How many of the literals' windows (4 characters, or the whole literal when shorter) hash to h. */
function windowFrequencies(literals: readonly string[], ids: readonly number[], shift: number): Uint16Array {
  const frequency = new Uint16Array(2 ** (32 - shift));
  for (const id of ids) {
    const literal = literals[id];
    const q = Math.min(4, literal.length);
    // The window rolls as the scan's does (one character in, one out): 8 bits per character.
    let window = 0;
    for (let i = 0; i < literal.length; i++) {
      window = (window << 8) | (literal.charCodeAt(i) & 0xff);
      if (i + 1 < q) continue;
      const h = imul(q === 4 ? window : window & windowMask(q), HASH) >>> shift;
      if (frequency[h] < 0xffff) frequency[h]++;
    }
  }
  return frequency;
}

function recordsLength(literals: readonly string[], ids: readonly number[]): number {
  let length = 0;
  for (const id of ids) length += RECORD_CHARS + literals[id].length;
  return length;
}

/**
 * Writes each literal's record, in the order of ids, choosing its anchor (the window of rarest
 * hash) in the same pass over its characters; anchorHash[n] is the hash of ids[n]'s anchor.
 */
function writeRecords(
  literals: readonly string[],
  ids: readonly number[],
  frequency: Uint16Array,
  shift: number,
  records: Int32Array,
  anchorHash: Int32Array,
): void {
  for (let n = 0, at = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    const q = Math.min(4, literal.length);
    let window = 0;
    for (let i = 0; i < literal.length; i++) {
      const code = literal.charCodeAt(i);
      records[at + RECORD_CHARS + i] = code;
      window = (window << 8) | (code & 0xff);
      if (i + 1 < q) continue;
      const masked = q === 4 ? window : window & windowMask(q);
      const h = imul(masked, HASH) >>> shift;
      if (i + 1 === q || frequency[h] < frequency[anchorHash[n]]) {
        anchorHash[n] = h;
        records[at + RECORD_END] = i + 1;
        records[at + RECORD_WINDOW] = masked;
      }
    }
    records[at + RECORD_ID] = ids[n];
    records[at + RECORD_LENGTH] = literal.length;
    at += RECORD_CHARS + literal.length;
  }
}

/** Sets the screen's bit of every filed literal's anchor window (see LiteralProbe.screenBits). */
function fillScreen(buckets: Buckets, screen: Int32Array): void {
  const { records, shift } = buckets;
  for (let at = 0; at < records.length; at += RECORD_CHARS + records[at + RECORD_LENGTH]) {
    const h = imul(records[at + RECORD_WINDOW], SCREEN_HASH) >>> shift;
    screen[h >>> 5] |= 1 << (h & 31);
  }
}

/** The rank table of a bit table (see Buckets.ranks). */
function rankTable(bits: Int32Array): Int32Array {
  const ranks = new Int32Array(bits.length * 2);
  for (let w = 0, occupied = 0; w < bits.length; w++) {
    ranks[w * 2] = occupied;
    ranks[w * 2 + 1] = bits[w];
    occupied += bitCount(bits[w]);
  }
  return ranks;
}

/** The number of occupied slots before slot h (its rank when occupied). */
function rankOf(ranks: Int32Array, h: number): number {
  const word = h >>> 5;
  return ranks[word * 2] + bitCount(ranks[word * 2 + 1] & ((1 << (h & 31)) - 1));
}

/**
 * The records grouped by slot, in the order of ranks (a counting sort, stable: a slot's literals keep
 * the order of ids).
 */
function sortBySlot(
  unsorted: Int32Array,
  anchorHash: Int32Array,
  ranks: Int32Array,
): { slotStart: Int32Array; records: Int32Array } {
  const last = ranks.length - 2;
  const occupied = ranks[last] + bitCount(ranks[last + 1]);
  // slotStart[r + 1] first counts the record words of slot r; the running sums make them starts.
  const slotStart = new Int32Array(occupied + 1);
  const anchorRank = new Int32Array(anchorHash.length);
  for (let n = 0, at = 0; n < anchorHash.length; n++) {
    const length = RECORD_CHARS + unsorted[at + RECORD_LENGTH];
    anchorRank[n] = rankOf(ranks, anchorHash[n]);
    slotStart[anchorRank[n] + 1] += length;
    at += length;
  }
  for (let r = 0; r < occupied; r++) slotStart[r + 1] += slotStart[r];
  const cursor = slotStart.slice(0, occupied);
  const records = new Int32Array(unsorted.length);
  for (let n = 0, at = 0; n < anchorHash.length; n++) {
    const length = RECORD_CHARS + unsorted[at + RECORD_LENGTH];
    records.set(unsorted.subarray(at, at + length), cursor[anchorRank[n]]);
    cursor[anchorRank[n]] += length;
    at += length;
  }
  return { slotStart, records };
}

/** Character code → the lowercase code literals use, 0 for a character no literal contains. */
function foldTable(literals: readonly string[]): Uint16Array {
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
  return fold;
}

/** The bits of the last q characters of a rolling window (8 bits each). */
function windowMask(q: number): number {
  return q === 1 ? 0xff : q === 2 ? 0xffff : 0xffffff;
}

/** The number of bits set in a 32-bit word. */
function bitCount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
