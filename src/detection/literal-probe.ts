import { OP, VOID_BLOCK, assembleModule, i32, memoryAccess } from './wasm-assembler';

/**
 * The literal scanner's probe loop (see literal-scanner.ts) as WebAssembly: the hash of the window
 * ending at each character, probed in the bit tables, for every character of the text. In JavaScript
 * this loop cost more than a tokenizer pass over the same page (a bounds check per table read, and
 * its speed depended on the feedback of whichever scan reached it first); compiled once per scanner,
 * with the scanner's table offsets, shifts and window masks as constants, it is a few machine
 * instructions a character. The hits are compared in JavaScript, as before: they are few.
 *
 * One memory per scanner, of fixed size, laid out as:
 *   FOLD   64 KiB: per UTF-16 code unit, the low 8 bits of its folded (lowercase) code, 0 when no
 *          literal has it (the scanner's fold table, as the window packs it)
 *   LONG   the long literals' bit table (the scanner's Int32Array view of it)
 *   SCREEN a second bit table of the long literals' anchor windows, by another hash: a window that
 *          only shares its LONG slot with some anchor (2 in 5 hits on the bench's pages) is dropped
 *          here, without reading the slot's literals
 *   SHORT  the short literals' bit table, when there are short literals
 *   HITS   the hits of one batch, in pairs of i32: position (bitwise not for the short table), window
 *   STATE  the rolling window carried from one call to the next
 *   TEXT   one chunk of the text, as UTF-16 code units
 */
export const PROBE_BATCH = 1024;
/** Characters of the text held in memory at once (a whole number of batches). */
export const PROBE_CHUNK = 16 * PROBE_BATCH;

const HASH = 0x9e3779b1;
/** The screen's hash: another odd multiplier, whose top bits are not those of HASH's product. */
export const SCREEN_HASH = 0x85ebca6b;
const PAGE = 65536;
const FOLD = 0;
const FOLD_BYTES = 65536;

export interface ProbeTables {
  /** Code unit → the lowercase code literals use, 0 for a character no literal contains. */
  readonly fold: Uint16Array;
  /** The long table's bit words and the shift that turns a window's hash into a slot. */
  readonly longWords: number;
  readonly longShift: number;
  /** The short table's bit words (0: no short literals) and shift. */
  readonly shortWords: number;
  readonly shortShift: number;
  /** The window masks of the short literal lengths in use (0xffffff for 3 characters, ...). */
  readonly shortMasks: readonly number[];
}

interface Layout {
  long: number;
  screen: number;
  short: number;
  hits: number;
  state: number;
  text: number;
  bytes: number;
}

function layoutOf(tables: ProbeTables): Layout {
  const long = FOLD + FOLD_BYTES;
  const screen = long + tables.longWords * 4;
  const short = screen + tables.longWords * 4;
  const hits = short + tables.shortWords * 4;
  // Every character can hit the long table and each short length once: two i32 per hit.
  const state = hits + PROBE_BATCH * (1 + tables.shortMasks.length) * 2 * 4;
  const text = state + 8;
  return { long, screen, short, hits, state, text, bytes: text + PROBE_CHUNK * 2 };
}

// Locals of the probe function: its parameters, then its own.
const FROM = 0;
const TO = 1;
const BASE = 2;
const WINDOW = 3;
const OUT = 4;
const SLOT = 5;

/** Pushes 1 when the slot in local SLOT is set in the bit table at `table`, else 0. */
function bitIsSet(table: number): number[] {
  return [
    OP.localGet, SLOT, ...i32(3), OP.i32ShrU, ...i32(-4), OP.i32And,
    ...memoryAccess(OP.i32Load, 2, table),
    // A shift counts modulo 32: the bit of the slot within its word.
    OP.localGet, SLOT, OP.i32ShrU, ...i32(1), OP.i32And,
  ];
}

/** Notes a hit: the position (as pushed by `position`) and the window (as pushed by `window`). */
function noteHit(hits: number, position: number[], window: number[]): number[] {
  return [
    OP.localGet, OUT, ...position, ...memoryAccess(OP.i32Store, 2, hits),
    OP.localGet, OUT, ...window, ...memoryAccess(OP.i32Store, 2, hits + 4),
    OP.localGet, OUT, ...i32(8), OP.i32Add, OP.localSet, OUT,
  ];
}

/**
 * probe(from, to, base): probes the text chunk's characters [from, to), the window rolling on from
 * STATE; notes each hit with its position in the whole text (base + index in the chunk); returns
 * the number of i32 written to HITS.
 */
function probeBody(tables: ProbeTables, layout: Layout): number[] {
  const position = [OP.localGet, BASE, OP.localGet, FROM, OP.i32Add];
  const shortProbes = tables.shortWords === 0 ? [] : tables.shortMasks.flatMap((mask) => {
    const masked = [OP.localGet, WINDOW, ...i32(mask), OP.i32And];
    return [
      ...masked, ...i32(HASH), OP.i32Mul, ...i32(tables.shortShift), OP.i32ShrU, OP.localSet, SLOT,
      ...bitIsSet(layout.short),
      OP.if, VOID_BLOCK,
      ...noteHit(layout.hits, [...position, ...i32(-1), OP.i32Xor], masked),
      OP.end,
    ];
  });
  return [
    ...i32(layout.state), ...memoryAccess(OP.i32Load, 2), OP.localSet, WINDOW,
    OP.block, VOID_BLOCK,
    OP.localGet, FROM, OP.localGet, TO, OP.i32GeU, OP.brIf, 0,
    OP.loop, VOID_BLOCK,
    // window = window << 8 | folded low byte of the character
    OP.localGet, WINDOW, ...i32(8), OP.i32Shl,
    OP.localGet, FROM, ...i32(1), OP.i32Shl, ...memoryAccess(OP.i32Load16u, 1, layout.text),
    ...memoryAccess(OP.i32Load8u, 0, FOLD),
    OP.i32Or, OP.localSet, WINDOW,
    OP.localGet, WINDOW, ...i32(HASH), OP.i32Mul, ...i32(tables.longShift), OP.i32ShrU, OP.localSet, SLOT,
    ...bitIsSet(layout.long),
    OP.if, VOID_BLOCK,
    OP.localGet, WINDOW, ...i32(SCREEN_HASH), OP.i32Mul, ...i32(tables.longShift), OP.i32ShrU, OP.localSet, SLOT,
    ...bitIsSet(layout.screen),
    OP.if, VOID_BLOCK,
    ...noteHit(layout.hits, position, [OP.localGet, WINDOW]),
    OP.end,
    OP.end,
    ...shortProbes,
    OP.localGet, FROM, ...i32(1), OP.i32Add, OP.localTee, FROM, OP.localGet, TO, OP.i32LtU, OP.brIf, 0,
    OP.end,
    OP.end,
    ...i32(layout.state), OP.localGet, WINDOW, ...memoryAccess(OP.i32Store, 2),
    OP.localGet, OUT, ...i32(2), OP.i32ShrU,
  ];
}

type ProbeExport = (from: number, to: number, base: number) => number;

/** A scanner's probe: its memory, the views the scanner reads and writes, and the compiled loop. */
export class LiteralProbe {
  /** The long table's bits (the scanner files literals and clears slots in it). */
  readonly longBits: Int32Array;
  /** The screen: bit SCREEN_HASH(window) >>> longShift set for each long literal's anchor window. */
  readonly screenBits: Int32Array;
  readonly shortBits: Int32Array;
  /** The hits of the last `probe` call. */
  readonly hits: Int32Array;
  private readonly state: Int32Array;
  private readonly memoryBytes: Buffer;
  private readonly textOffset: number;
  private readonly run: ProbeExport;

  constructor(tables: ProbeTables) {
    const layout = layoutOf(tables);
    const pages = Math.ceil(layout.bytes / PAGE);
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const module = new WebAssembly.Module(
      assembleModule(pages, [
        { name: 'probe', params: 3, returnsI32: true, locals: 3, body: probeBody(tables, layout) },
      ]),
    );
    const instance = new WebAssembly.Instance(module, { env: { memory } });
    this.run = instance.exports.probe as ProbeExport;
    const buffer = memory.buffer;
    const fold = new Uint8Array(buffer, FOLD, FOLD_BYTES);
    for (let code = 0; code < FOLD_BYTES; code++) fold[code] = tables.fold[code] & 0xff;
    this.longBits = new Int32Array(buffer, layout.long, tables.longWords);
    this.screenBits = new Int32Array(buffer, layout.screen, tables.longWords);
    this.shortBits = new Int32Array(buffer, layout.short, tables.shortWords);
    this.hits = new Int32Array(buffer, layout.hits, (layout.state - layout.hits) / 4);
    this.state = new Int32Array(buffer, layout.state, 1);
    this.memoryBytes = Buffer.from(buffer);
    this.textOffset = layout.text;
  }

  /** Starts a text: the window holds no character. */
  reset(): void {
    this.state[0] = 0;
  }

  /**
   * Copies the text's chunk starting at `start` into memory; returns where it ends. Characters
   * [start, end) can then be probed, a batch at a time.
   */
  load(text: string, start: number): number {
    const end = Math.min(text.length, start + PROBE_CHUNK);
    const chunk = start === 0 && end === text.length ? text : text.slice(start, end);
    this.memoryBytes.write(chunk, this.textOffset, (end - start) * 2, 'utf16le');
    return end;
  }

  /**
   * Probes the characters [from, to) of the text (a batch at most, within the chunk loaded from
   * `chunkStart`); returns how many i32 of hits it noted.
   */
  probe(chunkStart: number, from: number, to: number): number {
    return this.run(from - chunkStart, to - chunkStart, chunkStart);
  }
}
