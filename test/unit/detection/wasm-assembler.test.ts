import {
  OP,
  VOID_BLOCK,
  assembleModule,
  i32,
  memoryAccess,
  signed,
  unsigned,
} from '../../../src/detection/wasm-assembler';

describe('LEB128 numbers', () => {
  it('encodes unsigned numbers as the spec does', () => {
    expect(unsigned(0)).toEqual([0x00]);
    expect(unsigned(127)).toEqual([0x7f]);
    expect(unsigned(128)).toEqual([0x80, 0x01]);
    expect(unsigned(624485)).toEqual([0xe5, 0x8e, 0x26]);
    expect(unsigned(0xffffffff)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
  });

  it('encodes signed numbers as the spec does, the sign in the last byte', () => {
    expect(signed(0)).toEqual([0x00]);
    expect(signed(63)).toEqual([0x3f]);
    expect(signed(64)).toEqual([0xc0, 0x00]);
    expect(signed(-1)).toEqual([0x7f]);
    expect(signed(-64)).toEqual([0x40]);
    expect(signed(-65)).toEqual([0xbf, 0x7f]);
    expect(signed(-123456)).toEqual([0xc0, 0xbb, 0x78]);
    // A hash multiplier above 2^31 is its i32 (negative) value.
    expect(signed(0x9e3779b1)).toEqual(signed(0x9e3779b1 | 0));
  });
});

describe('assembled modules', () => {
  function instantiate(pages: number, functions: Parameters<typeof assembleModule>[1]) {
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    const module = new WebAssembly.Module(assembleModule(pages, functions));
    return { memory, exports: new WebAssembly.Instance(module, { env: { memory } }).exports };
  }

  it('runs arithmetic with constants of every LEB128 length', () => {
    const { exports } = instantiate(1, [
      {
        name: 'mix',
        params: 2,
        returnsI32: true,
        locals: 0,
        // (a * 0x9e3779b1) >>> 14, plus b, minus 100000
        // prettier-ignore
        body: [
          OP.localGet, 0, ...i32(0x9e3779b1), OP.i32Mul, ...i32(14), OP.i32ShrU,
          OP.localGet, 1, OP.i32Add, ...i32(100000), OP.i32Sub,
        ],
      },
    ]);
    const mix = exports.mix as (a: number, b: number) => number;
    for (const [a, b] of [
      [1, 2],
      [12345, -7],
      [0x7fffffff, 0],
      [-1, 99],
    ])
      expect(mix(a, b)).toBe(((Math.imul(a, 0x9e3779b1) >>> 14) + b - 100000) | 0);
  });

  it('loops over memory, and calls a function it does not export', () => {
    // sum(n): the sum of popcnt(byte) over bytes [0, n), through an unexported helper.
    const { memory, exports } = instantiate(1, [
      {
        name: 'sum',
        params: 1,
        returnsI32: true,
        locals: 2,
        // prettier-ignore
        body: [
          OP.block, VOID_BLOCK,
          OP.localGet, 0, OP.i32Eqz, OP.brIf, 0,
          OP.loop, VOID_BLOCK,
          OP.localGet, 2, OP.localGet, 1, ...memoryAccess(OP.i32Load8u, 0), OP.call, 1, OP.i32Add,
          OP.localSet, 2,
          OP.localGet, 1, ...i32(1), OP.i32Add, OP.localTee, 1, OP.localGet, 0, OP.i32LtU, OP.brIf, 0,
          OP.end,
          OP.end,
          OP.localGet, 2,
        ],
      },
      {
        name: 'bits',
        exported: false,
        params: 1,
        returnsI32: true,
        locals: 0,
        body: [OP.localGet, 0, OP.i32Popcnt],
      },
    ]);
    expect(Object.keys(exports)).toEqual(['sum']);
    new Uint8Array(memory.buffer).set([0xff, 0x01, 0x03, 0x80, 0x00]);
    const sum = exports.sum as (n: number) => number;
    expect(sum(0)).toBe(0);
    expect(sum(1)).toBe(8);
    expect(sum(5)).toBe(12);
  });

  it('stores with a constant offset where the code says', () => {
    const { memory, exports } = instantiate(1, [
      {
        name: 'put',
        params: 2,
        returnsI32: false,
        locals: 0,
        body: [OP.localGet, 0, OP.localGet, 1, ...memoryAccess(OP.i32Store, 2, 1000)],
      },
    ]);
    (exports.put as (at: number, value: number) => void)(8, -2);
    expect(new Int32Array(memory.buffer, 1008, 1)[0]).toBe(-2);
  });
});
