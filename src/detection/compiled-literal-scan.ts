import { OP, VOID_BLOCK, assembleModule, i32, memoryAccess } from './wasm-assembler';

/**
 * The literal scanner's scan (see literal-scanner.ts) as WebAssembly: for every character, the hash
 * of the window ending there probed in the bit tables, and on a hit the literals filed under that
 * slot compared with the text. In JavaScript this was the largest single cost of the detection (a
 * bounds check per table read, and a speed that depended on which scan's feedback reached the loop
 * first; docs/performance.md); here each scanner gets a module of its own, with its table offsets,
 * shifts and window masks as constants.
 *
 * The scanner builds the tables (filing literals, group starts, records) in JavaScript and hands
 * them over; the scan runs here. One memory per scanner, of fixed size:
 *   FOLD     per UTF-16 code unit, the lowercase code literals use (u16), 0 when no literal has it
 *   FOLD BYTE  the same, its low 8 bits (what a window takes of a character: a load, not a shift too)
 *   per table (long, then short when there are short literals):
 *     BITS     a bit per slot: some literal is filed there (cleared in a scan once all are found)
 *     STARTS   per group of GROUP_SLOTS slots, where the records filed under them begin (in
 *              bytes), and the end of the last: a hit reads one word here, then the records
 *     RECORDS  per filed literal, by group: window, id, where its anchor window ends, length,
 *              characters (u16)
 *   SCREEN   a second bit table of the long literals' anchor windows, by another hash: a window
 *            that only shares its long slot with some anchor is dropped without reading the slot
 *   FOUND    a byte per literal: found in this scan, or before it when the caller says so; all 0
 *            between scans
 *   LIST     the ids found in this scan, in order
 *   CLEARED  the slots cleared in this scan (the hash, bitwise not for the short table)
 *   STATE    the rolling window, how many ids LIST holds, how many slots CLEARED holds
 *   TEXT     a region of the text (u16): the chunk probed and, on either side, as many characters
 *            as the longest literal, so that a literal around a hit is compared without leaving it
 */
export const SCAN_CHUNK = 16 * 1024;

/**
 * The window hash's multiplier (multiplicative hashing: the product's top bits are the slot). A
 * window's first character moves only the product's top 8 bits, so windows that differ in it alone
 * (a 3-character literal's prefixed windows, markup's "ding", "king", "ping") share the slot's
 * lower bits, and whether two such families meet depends on the multiplier. The golden ratio's
 * (0x9e3779b1) put common markup families ("Xing", "Xpro") on prefixed literals' slots: about a
 * quarter more probe hits than other odd multipliers on pages the prior was not counted from.
 */
export const HASH = 0x1b873593;
/** The screen's hash: another odd multiplier, whose top bits are not those of HASH's product. */
export const SCREEN_HASH = 0x85ebca6b;
const PAGE = 65536;
const CODE_UNITS = 65536;

/**
 * A record, in 16-bit units: its anchor window (i32), its id (i32), where its anchor window ends,
 * its length, then its characters; padded to whole 32-bit words (recordBytes).
 */
export const RECORD_WINDOW = 0;
export const RECORD_ID = 2;
export const RECORD_END = 4;
export const RECORD_LENGTH = 5;
export const RECORD_CHARS = 6;
/**
 * Slots per group (a power of two): a group's records are walked from its start, each record's own
 * slot told by its window's hash. With one group per word of the bit table, a hit reads one start
 * and the group's few records, which sit together: no rank nor per-slot start to load first.
 */
export const GROUP_BITS = 5;

/** The bytes of a record of `length` characters (see RECORD_WINDOW). */
export function recordBytes(length: number): number {
  return (2 * (RECORD_CHARS + length) + 3) & ~3;
}

/**
 * Literals filed by the hash of one window each (see literal-scanner.ts), in a compact layout:
 * checking a hit reads a start and a few neighbouring records rather than scattered per-slot arrays.
 */
export interface ScanTable {
  /** A window's slot is the top (32 - shift) bits of its hash. */
  readonly shift: number;
  /** Bit h set when some literal is filed under slot h. */
  readonly bits: Int32Array;
  /** How many slots have a literal filed under them. */
  readonly occupied: number;
  /**
   * The records of the slots of group g (slots g << GROUP_BITS and on) are at bytes
   * starts[g]..starts[g + 1] of `records`.
   */
  readonly starts: Int32Array;
  /** The records (see RECORD_WINDOW), by group; within a group, in the order of ids. */
  readonly records: Uint16Array;
}

export interface ScanTables {
  /** Code unit → the lowercase code literals use, 0 for a character no literal contains. */
  readonly fold: Uint16Array;
  readonly long: ScanTable;
  /** Bit SCREEN_HASH(window) >>> screenShift set for each long literal's anchor window. */
  readonly screen: Int32Array;
  readonly screenShift: number;
  readonly short: ScanTable | null;
  /** The window masks of the short literal lengths in use (0xffffff for 3 characters, ...). */
  readonly shortMasks: readonly number[];
  readonly literalCount: number;
  /** The longest literal's length. */
  readonly longest: number;
}

const STATE_WINDOW = 0;
const STATE_LISTED = 4;
const STATE_CLEARED = 8;

interface TableAt {
  shift: number;
  bits: number;
  starts: number;
  records: number;
}

/** Byte offsets of everything in memory. */
class Layout {
  private end = 0;
  readonly fold = this.take(CODE_UNITS * 2);
  readonly foldByte = this.take(CODE_UNITS);
  readonly long: TableAt;
  readonly short: TableAt | null;
  readonly screen: number;
  readonly screenShift: number;
  readonly found: number;
  readonly list: number;
  readonly cleared: number;
  readonly state: number;
  readonly text: number;
  readonly textChars: number;
  readonly bytes: number;
  readonly longest: number;
  readonly shortMasks: readonly number[];

  constructor(tables: ScanTables) {
    this.longest = tables.longest;
    this.shortMasks = tables.shortMasks;
    this.long = this.table(tables.long);
    this.short = tables.short ? this.table(tables.short) : null;
    this.screen = this.take(tables.screen.length * 4);
    this.screenShift = tables.screenShift;
    this.found = this.take(tables.literalCount);
    this.list = this.take(tables.literalCount * 4);
    this.cleared = this.take((tables.long.occupied + (tables.short?.occupied ?? 0)) * 4);
    this.state = this.take(16);
    this.textChars = SCAN_CHUNK + 2 * tables.longest;
    this.text = this.take(this.textChars * 2);
    this.bytes = this.end;
  }

  private take(bytes: number): number {
    const at = this.end;
    this.end += Math.ceil(bytes / 8) * 8;
    return at;
  }

  private table(table: ScanTable): TableAt {
    return {
      shift: table.shift,
      bits: this.take(table.bits.length * 4),
      starts: this.take(table.starts.length * 4),
      records: this.take(table.records.length * 2),
    };
  }
}

// Instruction shorthands.
const get = (local: number): number[] => [OP.localGet, local];
const set = (local: number): number[] => [OP.localSet, local];
const tee = (local: number): number[] => [OP.localTee, local];
const load32 = (offset: number): number[] => memoryAccess(OP.i32Load, 2, offset);
const load16 = (offset: number): number[] => memoryAccess(OP.i32Load16u, 1, offset);
const load8 = (offset: number): number[] => memoryAccess(OP.i32Load8u, 0, offset);
const store32 = (offset: number): number[] => memoryAccess(OP.i32Store, 2, offset);
const store8 = (offset: number): number[] => memoryAccess(OP.i32Store8, 0, offset);

/** Pushes the word of bit `slot` (a local) of the bit table at `table`, shifted so the bit is bit 0. */
function bitOf(table: number, slot: number): number[] {
  // prettier-ignore
  return [
    ...get(slot), ...i32(3), OP.i32ShrU, ...i32(-4), OP.i32And, ...load32(table),
    // A shift counts modulo 32: the bit of the slot within its word.
    ...get(slot), OP.i32ShrU, ...i32(1), OP.i32And,
  ];
}

/** Adds 1 to the state counter at `offset`, leaving its old value times 4 (a byte index) pushed. */
function bumpCounter(state: number, offset: number): number[] {
  // prettier-ignore
  return [
    ...i32(0), ...load32(state + offset), ...i32(2), OP.i32Shl,
    ...i32(0), ...i32(0), ...load32(state + offset), ...i32(1), OP.i32Add, ...store32(state + offset),
  ];
}

// The compare function's locals: its parameters, then its own.
const SLOT = 0;
const WINDOW = 1;
const POSITION = 2;
const REGION = 3;
const RECORD = 4;
const END = 5;
const ID = 6;
const LENGTH = 7;
const START = 8;
const J = 9;
const PENDING = 10;
const CHARS = 11;
const T = 12;
const COMPARE_LOCALS = 9;

/**
 * compare(slot, window, position, region): compares the literals filed under `slot` (whose window,
 * the one probed, ends at `position` of the text region of `region` characters) with the text;
 * marks and lists those found; clears the slot when all of its literals are found.
 */
function compareBody(layout: Layout, table: TableAt, short: boolean): number[] {
  const note = short ? [...get(SLOT), ...i32(-1), OP.i32Xor] : get(SLOT);
  // prettier-ignore
  return [
    // The records of the slot's group, from its start to the next group's.
    ...get(SLOT), ...i32(GROUP_BITS), OP.i32ShrU, ...i32(2), OP.i32Shl, ...tee(T), ...load32(table.starts), ...set(RECORD),
    ...get(T), ...load32(table.starts + 4), ...set(END),
    OP.block, VOID_BLOCK,
    ...get(RECORD), ...get(END), OP.i32GeU, OP.brIf, 0,
    OP.loop, VOID_BLOCK,
    ...get(RECORD), ...tee(T), ...load16(table.records + RECORD_LENGTH * 2), ...set(LENGTH),
    ...get(T), ...i32(RECORD_CHARS * 2), OP.i32Add, ...set(CHARS),
    // The next record: this one's bytes rounded up to whole words (recordBytes).
    ...get(T), ...i32(RECORD_CHARS * 2 + 3), OP.i32Add, ...get(LENGTH), ...i32(1), OP.i32Shl, OP.i32Add,
    ...i32(-4), OP.i32And, ...set(RECORD),
    OP.block, VOID_BLOCK, // this record done
    // Another window than the one probed: a record of another slot of the group, passed over, or
    // a hash collision in this slot (in the short table, also the window of another length, whose
    // own probe compares this literal at the same position), which keeps the slot from clearing
    // unless its literal is found already.
    ...get(T), ...load32(table.records + RECORD_WINDOW * 2), ...tee(ID), ...get(WINDOW), OP.i32Ne,
    OP.if, VOID_BLOCK,
    ...get(ID), ...i32(HASH), OP.i32Mul, ...i32(table.shift), OP.i32ShrU, ...get(SLOT), OP.i32Eq,
    OP.if, VOID_BLOCK,
    ...get(T), ...load32(table.records + RECORD_ID * 2), ...load8(layout.found), OP.i32Eqz,
    OP.if, VOID_BLOCK, ...i32(1), ...set(PENDING), OP.end,
    OP.end,
    OP.br, 1,
    OP.end,
    ...get(T), ...load32(table.records + RECORD_ID * 2), ...tee(ID), ...load8(layout.found), OP.brIf, 0,
    ...get(POSITION), ...i32(1), OP.i32Add, ...get(T), ...load16(table.records + RECORD_END * 2), OP.i32Sub,
    ...tee(START), ...i32(0), OP.i32LtS,
    ...get(START), ...get(LENGTH), OP.i32Add, ...get(REGION), OP.i32GtS, OP.i32Or,
    OP.if, VOID_BLOCK, ...i32(1), ...set(PENDING), OP.br, 1, OP.end,
    ...i32(0), ...set(J),
    OP.block, VOID_BLOCK,
    OP.loop, VOID_BLOCK,
    ...get(J), ...get(LENGTH), OP.i32GeU, OP.brIf, 1,
    ...get(START), ...get(J), OP.i32Add, ...i32(1), OP.i32Shl, ...load16(layout.text),
    ...i32(1), OP.i32Shl, ...load16(layout.fold),
    ...get(CHARS), ...get(J), ...i32(1), OP.i32Shl, OP.i32Add, ...load16(table.records),
    OP.i32Ne, OP.brIf, 1,
    ...get(J), ...i32(1), OP.i32Add, ...set(J), OP.br, 0,
    OP.end,
    OP.end,
    ...get(J), ...get(LENGTH), OP.i32Ne,
    OP.if, VOID_BLOCK, ...i32(1), ...set(PENDING), OP.br, 1, OP.end,
    ...get(ID), ...i32(1), ...store8(layout.found),
    ...bumpCounter(layout.state, STATE_LISTED), ...get(ID), ...store32(layout.list),
    OP.end, // this record done
    ...get(RECORD), ...get(END), OP.i32LtU, OP.brIf, 0,
    OP.end,
    OP.end,
    ...get(PENDING), OP.i32Eqz,
    OP.if, VOID_BLOCK,
    ...get(SLOT), ...i32(3), OP.i32ShrU, ...i32(-4), OP.i32And, ...tee(T),
    ...get(T), ...load32(table.bits), ...i32(1), ...get(SLOT), OP.i32Shl, ...i32(-1), OP.i32Xor, OP.i32And,
    ...store32(table.bits),
    ...bumpCounter(layout.state, STATE_CLEARED), ...note, ...store32(layout.cleared),
    OP.end,
  ];
}

// The scan function's locals.
const FROM = 0;
const TO = 1;
const SCAN_REGION = 2;
const SCAN_WINDOW = 3;
const SCAN_SLOT = 4;
const SCAN_AT = 5;
const SCAN_LOCALS = 3;
/** Function indexes in the module. */
const COMPARE_LONG = 1;
const COMPARE_SHORT = 2;
/**
 * Characters probed per turn of the main loop: the text's address is worked out once a turn and
 * each character's load takes its place as a constant offset, and the loop's own test and branch
 * are paid once a turn (the rest, fewer than a turn's worth, goes one by one).
 */
const UNROLL = 4;

/**
 * Rolls the window on by the character at byte `textByte` (a local) plus `offset`, then probes the
 * window ending there, at text position `position` (the instructions that push it).
 */
function probeOne(layout: Layout, textByte: number, offset: number, position: readonly number[]): number[] {
  const { long, short } = layout;
  const shortProbes =
    short === null
      ? []
      : layout.shortMasks.flatMap((mask) => {
          const masked = [...get(SCAN_WINDOW), ...i32(mask), OP.i32And];
          // prettier-ignore
          return [
            ...masked, ...i32(HASH), OP.i32Mul, ...i32(short.shift), OP.i32ShrU, ...set(SCAN_SLOT),
            ...bitOf(short.bits, SCAN_SLOT),
            OP.if, VOID_BLOCK,
            ...get(SCAN_SLOT), ...masked, ...position, ...get(SCAN_REGION), OP.call, COMPARE_SHORT,
            OP.end,
          ];
        });
  // prettier-ignore
  return [
    // window = window << 8 | the low 8 bits of the character's folded code
    ...get(SCAN_WINDOW), ...i32(8), OP.i32Shl,
    ...get(textByte), ...load16(layout.text + offset), ...load8(layout.foldByte),
    OP.i32Or, ...set(SCAN_WINDOW),
    ...get(SCAN_WINDOW), ...i32(HASH), OP.i32Mul, ...i32(long.shift), OP.i32ShrU, ...set(SCAN_SLOT),
    ...bitOf(long.bits, SCAN_SLOT),
    OP.if, VOID_BLOCK,
    ...get(SCAN_WINDOW), ...i32(SCREEN_HASH), OP.i32Mul, ...i32(layout.screenShift), OP.i32ShrU, ...set(SCAN_SLOT),
    ...bitOf(layout.screen, SCAN_SLOT),
    OP.if, VOID_BLOCK,
    ...get(SCAN_WINDOW), ...i32(HASH), OP.i32Mul, ...i32(long.shift), OP.i32ShrU,
    ...get(SCAN_WINDOW), ...position, ...get(SCAN_REGION), OP.call, COMPARE_LONG,
    OP.end,
    OP.end,
    ...shortProbes,
  ];
}

/**
 * scan(from, to, region): probes the characters [from, to) of the text region (of `region`
 * characters), the window rolling on from the state's, comparing the literals at every hit.
 */
function scanBody(layout: Layout): number[] {
  const unrolled = Array.from({ length: UNROLL }, (_, k) =>
    probeOne(layout, SCAN_AT, 2 * k, k === 0 ? get(FROM) : [...get(FROM), ...i32(k), OP.i32Add]),
  ).flat();
  // prettier-ignore
  return [
    ...i32(0), ...load32(layout.state + STATE_WINDOW), ...set(SCAN_WINDOW),
    // UNROLL characters a turn while as many are left.
    OP.block, VOID_BLOCK,
    OP.loop, VOID_BLOCK,
    ...get(TO), ...get(FROM), OP.i32Sub, ...i32(UNROLL), OP.i32LtS, OP.brIf, 1,
    ...get(FROM), ...i32(1), OP.i32Shl, ...set(SCAN_AT),
    ...unrolled,
    ...get(FROM), ...i32(UNROLL), OP.i32Add, ...set(FROM), OP.br, 0,
    OP.end,
    OP.end,
    // Then one at a time.
    OP.block, VOID_BLOCK,
    ...get(FROM), ...get(TO), OP.i32GeU, OP.brIf, 0,
    OP.loop, VOID_BLOCK,
    ...get(FROM), ...i32(1), OP.i32Shl, ...set(SCAN_AT),
    ...probeOne(layout, SCAN_AT, 0, get(FROM)),
    ...get(FROM), ...i32(1), OP.i32Add, ...tee(FROM), ...get(TO), OP.i32LtU, OP.brIf, 0,
    OP.end,
    OP.end,
    ...i32(0), ...get(SCAN_WINDOW), ...store32(layout.state + STATE_WINDOW),
  ];
}

type ScanExport = (from: number, to: number, region: number) => void;

/** A scanner's compiled scan: its memory, holding its tables, and the module that reads them. */
export class CompiledLiteralScan {
  private readonly layout: Layout;
  private readonly run: ScanExport;
  private readonly memoryBytes: Buffer;
  private readonly state: Int32Array;
  private readonly found: Uint8Array;
  private readonly list: Int32Array;
  private readonly cleared: Int32Array;
  private readonly longBits: Int32Array;
  private readonly shortBits: Int32Array;

  constructor(tables: ScanTables) {
    const layout = new Layout(tables);
    const pages = Math.ceil(layout.bytes / PAGE);
    this.layout = layout;
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const compare = (table: TableAt, short: boolean) => ({
      name: short ? 'compareShort' : 'compareLong',
      exported: false,
      params: 4,
      returnsI32: false,
      locals: COMPARE_LOCALS,
      body: compareBody(layout, table, short),
    });
    const functions = [
      { name: 'scan', params: 3, returnsI32: false, locals: SCAN_LOCALS, body: scanBody(layout) },
      compare(layout.long, false),
      // Without short literals no call reaches it: the long table's offsets stand in.
      compare(layout.short ?? layout.long, true),
    ];
    const module = new WebAssembly.Module(assembleModule(pages, functions));
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    this.run = instance.exports.scan as ScanExport;

    const buffer = memory.buffer;
    new Uint16Array(buffer, layout.fold, CODE_UNITS).set(tables.fold);
    new Uint8Array(buffer, layout.foldByte, CODE_UNITS).set(tables.fold);
    const copyTable = (table: ScanTable, at: TableAt): Int32Array => {
      const bits = new Int32Array(buffer, at.bits, table.bits.length);
      bits.set(table.bits);
      new Int32Array(buffer, at.starts, table.starts.length).set(table.starts);
      new Uint16Array(buffer, at.records, table.records.length).set(table.records);
      return bits;
    };
    this.longBits = copyTable(tables.long, layout.long);
    this.shortBits = tables.short && layout.short ? copyTable(tables.short, layout.short) : new Int32Array(0);
    new Int32Array(buffer, layout.screen, tables.screen.length).set(tables.screen);
    this.found = new Uint8Array(buffer, layout.found, tables.literalCount);
    this.list = new Int32Array(buffer, layout.list, tables.literalCount);
    this.cleared = new Int32Array(buffer, layout.cleared, (layout.state - layout.cleared) / 4);
    this.state = new Int32Array(buffer, layout.state, 4);
    this.memoryBytes = Buffer.from(buffer);
  }

  /**
   * The ids of the literals that occur in one of the texts, in the order found, each once; those
   * marked in `before` (found earlier) are not looked for. The marks are kept in the module's memory
   * for the scan and taken off after it, so that a scan allocates no array of all the literals:
   * allocating one cost more than scanning a short text, and its bytes bring the garbage
   * collector's next full collection nearer.
   */
  scan(texts: readonly string[], before: Uint8Array | null = null): Int32Array {
    const { state } = this;
    if (before !== null) this.found.set(before);
    state[STATE_LISTED >> 2] = 0;
    state[STATE_CLEARED >> 2] = 0;
    try {
      for (const text of texts) this.scanText(text);
    } finally {
      this.restoreCleared();
      this.clearMarks(before !== null);
    }
    return this.list.slice(0, state[STATE_LISTED >> 2]);
  }

  /** Takes the found marks off, those of the literals listed in this scan or (`all`) every one. */
  private clearMarks(all: boolean): void {
    const { found, list } = this;
    if (all) found.fill(0);
    else for (let k = 0, n = this.state[STATE_LISTED >> 2]; k < n; k++) found[list[k]] = 0;
  }

  private scanText(text: string): void {
    const { layout, state } = this;
    state[STATE_WINDOW >> 2] = 0;
    const pad = layout.longest;
    for (let chunk = 0; chunk < text.length; chunk += SCAN_CHUNK) {
      const chunkEnd = Math.min(text.length, chunk + SCAN_CHUNK);
      const regionStart = Math.max(0, chunk - pad);
      const regionEnd = Math.min(text.length, chunkEnd + pad);
      const region =
        regionStart === 0 && regionEnd === text.length ? text : text.slice(regionStart, regionEnd);
      this.memoryBytes.write(region, layout.text, region.length * 2, 'utf16le');
      this.run(chunk - regionStart, chunkEnd - regionStart, region.length);
    }
  }

  /**
   * A slot whose literals are all found is cleared for the rest of a scan, so that a window the text
   * repeats (a tag name, a common path) is compared once, not at every occurrence; when the scan
   * ends, the tables are set as built again (a scan runs to its end without yielding: no other scan
   * sees them cleared).
   */
  private restoreCleared(): void {
    const { cleared, state } = this;
    for (let k = 0, n = state[STATE_CLEARED >> 2]; k < n; k++) {
      const note = cleared[k];
      const bits = note >= 0 ? this.longBits : this.shortBits;
      const h = note >= 0 ? note : ~note;
      bits[h >>> 5] |= 1 << (h & 31);
    }
    state[STATE_CLEARED >> 2] = 0;
  }
}
