import {
  CompiledLiteralScan,
  GROUP_BITS,
  HASH,
  RECORD_CHARS,
  RECORD_END,
  RECORD_ID,
  RECORD_LENGTH,
  RECORD_WINDOW,
  SCREEN_HASH,
  recordBytes,
  type ScanTable,
} from './compiled-literal-scan';
import { markupSlotGrades, markupWindowGrade } from './markup-window-grade';

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
/**
 * Grades (about log2 of a count) taken off those of other windows sharing an anchor's slot: their
 * occurrences cost a probe hit each, mostly stopped by the screen, not a comparison.
 */
const SHARED_SLOT_DISCOUNT = 2;
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
    const long = fileLiterals(literals, longIds, LONG_BITS, SLOTS_PER_LITERAL_BITS, longPrefixes, fold);
    const screenShift = Math.max(long.table.shift, 32 - SCREEN_BITS);
    this.compiled = new CompiledLiteralScan({
      fold,
      long: long.table,
      screen: screenOf(long.windows, screenShift),
      screenShift,
      short: shortIds.length
        ? fileLiterals(literals, shortIds, SHORT_BITS, SHORT_SLOTS_PER_LITERAL_BITS).table
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
 * choosing the window whose hash is rarest among all the literals' windows; `windows` are the
 * anchor windows, one per id. This is on the start-up path, mostly run before the JIT has optimized
 * it: each loop is a function of its own, so that code optimized while in one loop is not thrown
 * away on reaching the next.
 */
function fileLiterals(
  literals: readonly string[],
  ids: readonly number[],
  maxBits: number,
  slotsPerLiteralBits: number,
  prefixes: readonly number[] | null = null,
  fold: Uint16Array | null = null,
): { table: ScanTable; windows: Int32Array } {
  const hashBits = Math.min(
    maxBits,
    Math.max(MIN_BITS, Math.ceil(Math.log2(ids.length + 1)) + slotsPerLiteralBits),
  );
  const shift = 32 - hashBits;
  const frequency = windowFrequencies(literals, ids, prefixes, shift);
  const anchorEnds = new Int32Array(ids.length);
  const windows = new Int32Array(ids.length);
  const anchorHash = new Int32Array(ids.length);
  const slotGrades = fold === null ? null : markupSlotGrades(fold, shift);
  chooseAnchors(literals, ids, prefixes, frequency, shift, slotGrades, anchorEnds, windows, anchorHash);
  const bits = new Int32Array(Math.max(1, (1 << hashBits) >>> 5));
  for (let n = 0; n < ids.length; n++) bits[anchorHash[n] >>> 5] |= 1 << (anchorHash[n] & 31);
  let occupied = 0;
  for (let w = 0; w < bits.length; w++) occupied += bitCount(bits[w]);
  const groups = Math.max(1, (1 << hashBits) >>> GROUP_BITS);
  const starts = groupStarts(literals, ids, anchorHash, groups);
  const records = writeRecords(literals, ids, anchorEnds, windows, anchorHash, starts);
  return { table: { shift, bits, occupied, starts, records }, windows };
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

/**
 * Chooses each literal's anchor (see anchorEnd): for ids[n], where its window ends, the window packed
 * as the scan packs it, and its hash.
 */
function chooseAnchors(
  literals: readonly string[],
  ids: readonly number[],
  prefixes: readonly number[] | null,
  frequency: Uint16Array,
  shift: number,
  slotGrades: Uint8Array | null,
  anchorEnds: Int32Array,
  windows: Int32Array,
  anchorHash: Int32Array,
): void {
  for (let n = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    const prefix = prefixes === null ? ANY_WINDOW : prefixes[n];
    // A prefixed literal is filed under the given window: the prefix byte, then its three characters.
    const end = prefix === ANY_WINDOW ? anchorEnd(literal, frequency, shift, slotGrades) : literal.length;
    const window = prefix === ANY_WINDOW ? windowEndingAt(literal, end) : prefixedWindow(prefix, literal);
    anchorEnds[n] = end;
    windows[n] = window;
    anchorHash[n] = imul(window, HASH) >>> shift;
  }
}

/**
 * Where each group's records begin, in bytes, and (last) where they end: the records are laid out
 * group by group (a counting sort of the literals by group).
 */
function groupStarts(
  literals: readonly string[],
  ids: readonly number[],
  anchorHash: Int32Array,
  groups: number,
): Int32Array {
  // starts[g + 1] first counts the bytes of group g; the running sums make them starts.
  const starts = new Int32Array(groups + 1);
  for (let n = 0; n < ids.length; n++) {
    starts[(anchorHash[n] >>> GROUP_BITS) + 1] += recordBytes(literals[ids[n]].length);
  }
  for (let g = 0; g < groups; g++) starts[g + 1] += starts[g];
  return starts;
}

/**
 * The records (see RECORD_WINDOW) at their groups' places; within a group, in the order of ids (a
 * slot's literals are compared in that order).
 */
function writeRecords(
  literals: readonly string[],
  ids: readonly number[],
  anchorEnds: Int32Array,
  windows: Int32Array,
  anchorHash: Int32Array,
  starts: Int32Array,
): Uint16Array {
  const buffer = new ArrayBuffer(starts[starts.length - 1]);
  const words = new Int32Array(buffer);
  const units = new Uint16Array(buffer);
  const cursor = starts.slice(0, starts.length - 1);
  for (let n = 0; n < ids.length; n++) {
    const literal = literals[ids[n]];
    if (literal.length > 0xffff) throw new Error('literal too long for the scan');
    const group = anchorHash[n] >>> GROUP_BITS;
    const at = cursor[group] >>> 1;
    cursor[group] += recordBytes(literal.length);
    words[(at + RECORD_WINDOW) >>> 1] = windows[n];
    words[(at + RECORD_ID) >>> 1] = ids[n];
    units[at + RECORD_END] = anchorEnds[n];
    units[at + RECORD_LENGTH] = literal.length;
    for (let i = 0; i < literal.length; i++) units[at + RECORD_CHARS + i] = literal.charCodeAt(i);
  }
  return units;
}

/**
 * Where a literal's anchor ends: at the window (4 characters, or the whole literal when shorter) the
 * page markup repeats least (markupWindowGrade), or whose slot its common windows fall in least
 * (`slotGrades`, see markupSlotGrades: a probe hit there costs less than one at the window itself),
 * then of those the one whose hash is rarest among the literals' windows (`frequency`, by the top
 * 32 - shift bits), the first of equals.
 */
export function anchorEnd(
  literal: string,
  frequency: Uint16Array,
  shift: number,
  slotGrades: Uint8Array | null = null,
): number {
  const q = Math.min(4, literal.length);
  let end = q;
  let least = Infinity;
  // The window rolls as the scan's does (one character in, one out): 8 bits per character.
  let window = 0;
  for (let i = 0; i < literal.length; i++) {
    window = (window << 8) | (literal.charCodeAt(i) & 0xff);
    if (i + 1 < q) continue;
    const masked = q === 4 ? window : window & windowMask(q);
    const slot = imul(masked, HASH) >>> shift;
    const grade = markupWindowGrade(masked);
    const shared = slotGrades === null ? 0 : slotGrades[slot] - SHARED_SLOT_DISCOUNT;
    const cost = Math.max(grade, shared) * GRADE_COST + frequency[slot];
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
function screenOf(windows: Int32Array, shift: number): Int32Array {
  const screen = new Int32Array(Math.max(1, (1 << (32 - shift)) >>> 5));
  for (let n = 0; n < windows.length; n++) {
    const h = imul(windows[n], SCREEN_HASH) >>> shift;
    screen[h >>> 5] |= 1 << (h & 31);
  }
  return screen;
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
