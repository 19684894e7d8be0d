/**
 * A small WebAssembly writer: enough of the binary format (https://webassembly.github.io/spec/core/binary/)
 * for a module of a few i32 functions over one imported memory. The literal scanner's scan is
 * written with it at run time, with its table offsets and shifts as constants: no toolchain, no
 * binary in the repository, and the code read in review is the code that runs.
 */

/** The opcodes used (the spec's numbering). */
export const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  call: 0x10,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i32Load8u: 0x2d,
  i32Load16u: 0x2f,
  i32Store: 0x36,
  i32Store8: 0x3a,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32Ne: 0x47,
  i32LtS: 0x48,
  i32GtS: 0x4a,
  i32LeU: 0x4d,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Popcnt: 0x69,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Or: 0x72,
  i32Xor: 0x73,
  i32Shl: 0x74,
  i32ShrU: 0x76,
} as const;

/** The block type of a block, loop or if that leaves nothing on the stack. */
export const VOID_BLOCK = 0x40;
const I32 = 0x7f;
const FUNCTION_TYPE = 0x60;
const EXTERNAL_FUNCTION = 0x00;
const EXTERNAL_MEMORY = 0x02;

/** An unsigned LEB128 number. */
export function unsigned(value: number): number[] {
  const out: number[] = [];
  let rest = value >>> 0;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

/** A signed LEB128 number (an i32.const immediate). */
export function signed(value: number): number[] {
  const out: number[] = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** i32.const value. */
export function i32(value: number): number[] {
  return [OP.i32Const, ...signed(value)];
}

/** A load or store with its memory argument (alignment as a power of two, constant offset). */
export function memoryAccess(op: number, alignPower: number, offset = 0): number[] {
  return [op, ...unsigned(alignPower), ...unsigned(offset)];
}

export interface WasmFunction {
  /** Exported under this name. */
  readonly name: string;
  /** Exported under `name` unless false (a function only the module's others call). */
  readonly exported?: boolean;
  /** How many i32 parameters (locals 0..params-1). */
  readonly params: number;
  /** Whether it returns one i32. */
  readonly returnsI32: boolean;
  /** How many i32 locals after the parameters. */
  readonly locals: number;
  /** The instructions, without the final `end`. */
  readonly body: readonly number[];
}

function vector(items: readonly (readonly number[])[]): number[] {
  return [...unsigned(items.length), ...items.flat()];
}

function section(id: number, content: readonly number[]): number[] {
  return [id, ...unsigned(content.length), ...content];
}

function name(text: string): number[] {
  const bytes = [...Buffer.from(text, 'utf8')];
  return [...unsigned(bytes.length), ...bytes];
}

/**
 * The bytes of a module importing `env.memory` (at least `memoryPages` pages of 64 KiB) and
 * exporting the functions, each with a type of its own; function k is called by `call k`.
 */
export function assembleModule(
  memoryPages: number,
  functions: readonly WasmFunction[],
): Uint8Array<ArrayBuffer> {
  const types = functions.map((f) => [
    FUNCTION_TYPE,
    ...vector(Array.from({ length: f.params }, () => [I32])),
    ...vector(f.returnsI32 ? [[I32]] : []),
  ]);
  const memoryImport = [...name('env'), ...name('memory'), EXTERNAL_MEMORY, 0x00, ...unsigned(memoryPages)];
  const bodies = functions.map((f) => {
    const locals = f.locals > 0 ? vector([[...unsigned(f.locals), I32]]) : vector([]);
    const code = [...locals, ...f.body, OP.end];
    return [...unsigned(code.length), ...code];
  });
  // prettier-ignore
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, // "\0asm"
    0x01, 0x00, 0x00, 0x00, // version 1
    ...section(1, vector(types)),
    ...section(2, vector([memoryImport])),
    ...section(3, vector(functions.map((_, index) => unsigned(index)))),
    ...section(
      7,
      vector(
        functions.flatMap((f, index) =>
          f.exported === false ? [] : [[...name(f.name), EXTERNAL_FUNCTION, ...unsigned(index)]],
        ),
      ),
    ),
    ...section(10, vector(bodies)),
  ]);
}
