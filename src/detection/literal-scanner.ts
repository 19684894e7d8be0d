import {
  CompiledLiteralScan,
  HASH,
  RECORD_CHARS,
  RECORD_END,
  RECORD_ID,
  RECORD_LENGTH,
  RECORD_WINDOW,
  SCREEN_HASH,
  type ScanTable,
} from './compiled-literal-scan';
import { markupWindowGrade } from './markup-window-grade';

/**
 * One-pass, case-insensitive multi-literal scan: an anchored hash filter (as in Rabin-Karp and
 * Hyperscan's FDR). Each literal of 4+ characters is filed under one of its 4-character windows, the
 * one page markup repeats least (markup-window-grade.ts), then the rarest among all literals'
 * windows; shorter literals are filed whole in a small table of their own. The scan hashes the
 * window ending at every character and probes a bit table (one bit per slot, small enough to stay
 * in the cache); at a hit it compares the few literals filed there, clearing a slot for the rest of
 * the scan once all of its literals are found. The tables are built here; the scan runs in
 * WebAssembly (compiled-literal-scan.ts).
 *
 * It replaced a full Aho-Corasick DFA: that one scanned a little faster but its transition tables
 * for every literal were slow and large to build on the start-up path (figures in
 * docs/performance.md); this one builds from typed arrays. Each text position costs O(literals
 * filed under its window), and choosing the rarest window keeps those buckets to a handful.
 */
/**
 * Math.imul read once: under the test runner (code in a vm context) a `Math.imul` looked up in a hot
 * loop is not inlined and costs many times the loop's own work; read once, it costs nothing anywhere.
 */
const imul = Math.imul;
/**
 * The long table has at most 2^19 slots (64 KB of bits): with the markup's literals, probes of a
 * table half that size hit wrong slots markedly more often, and one twice that size, faster alone,
 * was no faster among the rest of the detection (it does not stay in the cache).
 */
const LONG_BITS = 19;
/** The screen (see CompiledLiteralScan) has at most 2^18 slots: it is read only at a bit hit. */
const SCREEN_BITS = 18;
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
/** A long-table entry whose anchor is chosen among the literal's windows. */
const ANY_WINDOW = -1;
/** More than any count of windows (see writeRecords): a window's grade in markup comes first. */
const GRADE_COST = 0x10000;
/** At most this many prefixed windows of 3-character literals go in the long table. */
const MAX_PREFIXED = 1 << 14;

export class LiteralScanner {
  /** The scan, in WebAssembly, over tables built here. */
  private readonly compiled: CompiledLiteralScan;

  constructor(readonly literals: readonly string[]) {
    const fold = foldTable(literals);
    const longIds: number[] = [];
    const longPrefixes: number[] = [];
    const threes: number[] = [];
    const shortIds: number[] = [];
    const shortLengths = new Set<number>();
    literals.forEach((literal, id) => {
      if (literal.length >= 4) {
        longIds.push(id);
        longPrefixes.push(ANY_WINDOW);
      } else if (literal.length === 3) threes.push(id);
      else if (literal.length > 0) {
        shortIds.push(id);
        shortLengths.add(literal.length);
      }
    });
    // A 3-character literal is filed in the long table under each window it can end: each byte the
    // character before it can fold to, then its own three. The scan then probes one table per
    // character, not two; a literal is filed a few dozen times (the bytes the literals' characters
    // have, and 0), which is kept to a bounded share of the table.
    const before = foldedBytes(fold);
    if (threes.length * before.length <= MAX_PREFIXED) {
      for (const id of threes) {
        for (const byte of before) {
          longIds.push(id);
          longPrefixes.push(byte);
        }
      }
    } else {
      shortIds.push(...threes);
      if (threes.length > 0) shortLengths.add(3);
    }
    const long = fileLiterals(literals, longIds, LONG_BITS, SLOTS_PER_LITERAL_BITS, longPrefixes);
    const screenShift = Math.max(long.shift, 32 - SCREEN_BITS);
    this.compiled = new CompiledLiteralScan({
      fold,
      long,
      screen: screenOf(long, screenShift),
      screenShift,
      short: shortIds.length
        ? fileLiterals(literals, shortIds, SHORT_BITS, SHORT_SLOTS_PER_LITERAL_BITS)
        : null,
      shortMasks: [...shortLengths].map(windowMask),
      literalCount: literals.length,
      longest: literals.reduce((longest, literal) => Math.max(longest, literal.length), 0),
    });
  }

  /**
   * Sets found[id] = 1 for every literal that occurs in text (those already set are not looked for);
   * returns how many new ones it found.
   */
  scan(text: string, found: Uint8Array): number {
    const ids = this.compiled.scan([text], found);
    for (let k = 0; k < ids.length; k++) found[ids[k]] = 1;
    return ids.length;
  }

  /** The ids of the literals that occur in one of the texts (each once, in the order found). */
  scanIds(texts: readonly string[]): Int32Array {
    return this.compiled.scan(texts);
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
  prefixes: readonly number[] | null = null,
): ScanTable {
  const hashBits = Math.min(
    maxBits,
    Math.max(MIN_BITS, Math.ceil(Math.log2(ids.length + 1)) + slotsPerLiteralBits),
  );
  const shift = 32 - hashBits;
  const frequency = windowFrequencies(literals, ids, prefixes, shift);
  const unsorted = new Int32Array(recordsLength(literals, ids));
  const anchorHash = new Int32Array(ids.length);
  writeRecords(literals, ids, prefixes, frequency, shift, unsorted, anchorHash);
  const bits = new Int32Array(Math.max(1, (1 << hashBits) >>> 5));
  for (let n = 0; n < ids.length; n++) bits[anchorHash[n] >>> 5] |= 1 << (anchorHash[n] & 31);
  const ranks = rankTable(bits);
  const { slotStart, records } = sortBySlot(unsorted, anchorHash, ranks);
  return { shift, bits, ranks, slotStart, records };
}

/** How many of the literals' windows (4 characters, or the whole literal when shorter) hash to h. */
function windowFrequencies(
  literals: readonly string[],
  ids: readonly number[],
  prefixes: readonly number[] | null,
  shift: number,
): Uint16Array {
  const frequency = new Uint16Array(2 ** (32 - shift));
  for (let n = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    const prefix = prefixes === null ? ANY_WINDOW : prefixes[n];
    if (prefix !== ANY_WINDOW) {
      const h = imul(prefixedWindow(prefix, literal), HASH) >>> shift;
      if (frequency[h] < 0xffff) frequency[h]++;
      continue;
    }
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
 * Writes each literal's record, in the order of ids, with its anchor (see anchorEnd); anchorHash[n]
 * is the hash of ids[n]'s anchor window.
 */
function writeRecords(
  literals: readonly string[],
  ids: readonly number[],
  prefixes: readonly number[] | null,
  frequency: Uint16Array,
  shift: number,
  records: Int32Array,
  anchorHash: Int32Array,
): void {
  for (let n = 0, at = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    const prefix = prefixes === null ? ANY_WINDOW : prefixes[n];
    for (let i = 0; i < literal.length; i++) records[at + RECORD_CHARS + i] = literal.charCodeAt(i);
    // A prefixed literal is filed under the given window: the prefix byte, then its three characters.
    const end = prefix === ANY_WINDOW ? anchorEnd(literal, frequency, shift) : literal.length;
    const window = prefix === ANY_WINDOW ? windowEndingAt(literal, end) : prefixedWindow(prefix, literal);
    anchorHash[n] = imul(window, HASH) >>> shift;
    records[at + RECORD_ID] = ids[n];
    records[at + RECORD_END] = end;
    records[at + RECORD_LENGTH] = literal.length;
    records[at + RECORD_WINDOW] = window;
    at += RECORD_CHARS + literal.length;
  }
}

/**
 * Where a literal's anchor ends: at the window (4 characters, or the whole literal when shorter) the
 * page markup repeats least (markupWindowGrade), then of those the one whose hash is rarest among the
 * literals' windows (`frequency`, by the top 32 - shift bits), the first of equals.
 */
export function anchorEnd(literal: string, frequency: Uint16Array, shift: number): number {
  const q = Math.min(4, literal.length);
  let end = q;
  let least = Infinity;
  // The window rolls as the scan's does (one character in, one out): 8 bits per character.
  let window = 0;
  for (let i = 0; i < literal.length; i++) {
    window = (window << 8) | (literal.charCodeAt(i) & 0xff);
    if (i + 1 < q) continue;
    const masked = q === 4 ? window : window & windowMask(q);
    const cost = markupWindowGrade(masked) * GRADE_COST + frequency[imul(masked, HASH) >>> shift];
    if (cost < least) {
      least = cost;
      end = i + 1;
    }
  }
  return end;
}

/** The window (4 characters, or the whole literal when shorter) ending at `end`, packed as the scan packs it. */
function windowEndingAt(literal: string, end: number): number {
  let window = 0;
  for (let i = Math.max(0, end - 4); i < end; i++) window = (window << 8) | (literal.charCodeAt(i) & 0xff);
  return window;
}

/** The window of a 3-character literal after a character folding to the byte `prefix`. */
function prefixedWindow(prefix: number, literal: string): number {
  return (
    (prefix << 24) |
    ((literal.charCodeAt(0) & 0xff) << 16) |
    ((literal.charCodeAt(1) & 0xff) << 8) |
    (literal.charCodeAt(2) & 0xff)
  );
}

/**
 * The bytes a text character can fold to, as the scan packs it in a window: 0 (a character no
 * literal has) and the low 8 bits of each folded code.
 */
function foldedBytes(fold: Uint16Array): number[] {
  const bytes = new Set<number>([0]);
  for (let code = 0; code < fold.length; code++) if (fold[code] !== 0) bytes.add(fold[code] & 0xff);
  return [...bytes];
}

/**
 * The screen of a table: a bit per anchor window, the top (32 - shift) bits of its SCREEN_HASH
 * product (see CompiledLiteralScan).
 */
function screenOf(table: ScanTable, shift: number): Int32Array {
  const { records } = table;
  const screen = new Int32Array(Math.max(1, (1 << (32 - shift)) >>> 5));
  for (let at = 0; at < records.length; at += RECORD_CHARS + records[at + RECORD_LENGTH]) {
    const h = imul(records[at + RECORD_WINDOW], SCREEN_HASH) >>> shift;
    screen[h >>> 5] |= 1 << (h & 31);
  }
  return screen;
}

/** The rank table of a bit table (see ScanTable.ranks). */
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
