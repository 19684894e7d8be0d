import { SCAN_CHUNK } from '../../../src/detection/compiled-literal-scan';
import { LiteralScanner } from '../../../src/detection/literal-scanner';

/** A linear congruential generator (its high bits only are used): the same cases on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
}

// Few distinct characters, so windows repeat and collide: ASCII, non-ASCII (whose low 8 bits clash
// with ASCII ones: U+0161 and 'a'), and an astral character (a surrogate pair).
const LOWER = ['a', 'b', 'c', '-', '/', '.', 'é', 'š', 'д', '😀'];
const UPPER: Record<string, string> = { a: 'A', b: 'B', c: 'C', é: 'É', š: 'Š', д: 'Д' };
/** Characters no literal has. */
const OTHER = ['x', 'Z', ' ', '<', 'ā'];

function randomLiteral(random: () => number, length: number): string {
  let literal = '';
  while (literal.length < length) literal += LOWER[Math.floor(random() * LOWER.length)];
  return literal;
}

function inRandomCase(random: () => number, text: string): string {
  return [...text].map((c) => (UPPER[c] !== undefined && random() < 0.5 ? UPPER[c] : c)).join('');
}

function randomText(random: () => number, literals: readonly string[], length: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const pick = random();
    let part: string;
    if (pick < 0.15) part = inRandomCase(random, literals[Math.floor(random() * literals.length)]);
    else if (pick < 0.55) part = inRandomCase(random, LOWER[Math.floor(random() * LOWER.length)]);
    else if (pick < 0.6) {
      // A literal placed across a chunk boundary (the scan holds one chunk of the text at a time).
      const literal = literals[Math.floor(random() * literals.length)];
      const boundary = (Math.floor(size / SCAN_CHUNK) + 1) * SCAN_CHUNK;
      const pad = Math.max(0, boundary - size - Math.floor(random() * literal.length));
      part = 'x'.repeat(pad) + inRandomCase(random, literal);
    } else part = OTHER[Math.floor(random() * OTHER.length)];
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

describe('literal scanner against a reference', () => {
  it('finds exactly the literals a lowercase search finds, on random texts and literal sets', () => {
    const random = generator(35);
    for (let round = 0; round < 40; round++) {
      const count = 1 + Math.floor(random() * (round % 4 === 0 ? 400 : 40));
      // Mostly long literals, some short ones of one to three lengths.
      const shortLengths = [1, 2, 3].filter(() => random() < 0.4);
      const literals = [
        ...new Set(
          Array.from({ length: count }, () =>
            random() < 0.2 && shortLengths.length > 0
              ? randomLiteral(random, shortLengths[Math.floor(random() * shortLengths.length)])
              : randomLiteral(random, 4 + Math.floor(random() * 9)),
          ),
        ),
      ];
      const scanner = new LiteralScanner(literals);
      const found = new Uint8Array(literals.length);
      const expected = new Uint8Array(literals.length);
      for (let t = 0; t < 3; t++) {
        const text = randomText(random, literals, Math.floor(random() * 2.5 * SCAN_CHUNK));
        const lower = text.toLowerCase();
        let fresh = 0;
        literals.forEach((literal, id) => {
          if (expected[id] === 0 && lower.includes(literal)) {
            expected[id] = 1;
            fresh++;
          }
        });
        expect(scanner.scan(text, found)).toBe(fresh);
        expect([...found]).toEqual([...expected]);
      }
    }
  });
});

describe('literal scanner edge cases', () => {
  function foundIn(literals: readonly string[], text: string): string[] {
    const found = new Uint8Array(literals.length);
    new LiteralScanner(literals).scan(text, found);
    return literals.filter((_, id) => found[id] !== 0);
  }

  it('finds literals at the very start and end of the text, and a text that is one literal', () => {
    const literals = ['jquery.min.js', 'wp-content', 'gtag', 'abc', 'ga'];
    expect(foundIn(literals, 'jquery.min.js and wp-content')).toEqual(['jquery.min.js', 'wp-content']);
    expect(foundIn(literals, 'wp-content')).toEqual(['wp-content']);
    expect(foundIn(literals, 'gtag')).toEqual(['gtag']);
    expect(foundIn(literals, 'ga')).toEqual(['ga']);
  });

  it('finds nothing where only part of a literal is there, cut by either end of the text', () => {
    const literals = ['jquery.min.js', 'wp-content/themes'];
    // The anchor of each literal is present but the text ends (or starts) inside the literal.
    expect(foundIn(literals, 'jquery.min.j')).toEqual([]);
    expect(foundIn(literals, 'query.min.js')).toEqual([]);
    expect(foundIn(literals, 'wp-content/theme')).toEqual([]);
    expect(foundIn(literals, 'p-content/themes')).toEqual([]);
    expect(foundIn(literals, '')).toEqual([]);
    expect(foundIn(literals, 'j')).toEqual([]);
  });

  it('finds a literal wherever it ends: in a turn of several characters or among those left after', () => {
    const literals = ['gtag', 'abc', 'jquery.js'];
    for (const literal of literals) {
      for (let before = 0; before < 9; before++) {
        for (let after = 0; after < 9; after++) {
          const text = 'x'.repeat(before) + literal + 'x'.repeat(after);
          expect(foundIn(literals, text)).toEqual([literal]);
          expect(foundIn(literals, text.slice(0, -1 - after))).toEqual([]);
        }
      }
    }
  });

  it('finds literals whatever their case, with two-byte characters', () => {
    const literals = ['šablona-theme', 'отправить', 'café-bar.js'];
    expect(foundIn(literals, '<p>ŠABLONA-Theme</p>')).toEqual(['šablona-theme']);
    expect(foundIn(literals, 'ОТПРАВИТЬ')).toEqual(['отправить']);
    expect(foundIn(literals, 'x CAFÉ-BAR.JS x')).toEqual(['café-bar.js']);
    // 'š' (U+0161) and 'a' (U+0061) share their low 8 bits: the folded windows match, the literal does not.
    expect(foundIn(literals, 'aablona-theme')).toEqual([]);
    expect(foundIn(literals, 'šablona-thema')).toEqual([]);
  });

  it('finds 3-character literals at the start, after any character, and when too many to prefix', () => {
    const literals = ['abc', 'šx-', 'wp-content'];
    expect(foundIn(literals, 'ABC')).toEqual(['abc']);
    // The character before shares its low 8 bits with one a literal has ('š' and 'a').
    expect(foundIn(literals, 'šABC aŠX- zwp-content')).toEqual(['abc', 'šx-', 'wp-content']);
    expect(foundIn(literals, '\u4e00abc')).toEqual(['abc']);
    expect(foundIn(literals, 'ab abx ax- šx')).toEqual([]);
    // Thousands of 3-character literals over a wide alphabet: filed in the short table instead.
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const many: string[] = [];
    for (const a of alphabet) for (const b of alphabet) many.push(`${a}${b}z`);
    const text = `xx ${many.slice(1000, 1020).join(' ').toUpperCase()} 9az`;
    const lower = text.toLowerCase();
    expect(foundIn(many, text)).toEqual(many.filter((literal) => lower.includes(literal)));
  });

  it('reads lone surrogates as the code units they are', () => {
    const literals = ['\ud800abc-x', 'abc\udc00', 'plain-lit'];
    expect(foundIn(literals, 'x\ud800ABC-X y')).toEqual(['\ud800abc-x']);
    expect(foundIn(literals, 'ABC\udc00 PLAIN-LIT')).toEqual(['abc\udc00', 'plain-lit']);
    expect(foundIn(literals, '\ud800abc- abc\udc01')).toEqual([]);
  });

  it('finds literals straddling a chunk boundary, and not their near misses', () => {
    const literals = ['0123456789abcdef', 'boundary-literal'];
    for (let offset = 1; offset < 16; offset++) {
      const text = 'x'.repeat(SCAN_CHUNK - offset) + 'BOUNDARY-literal' + 'y'.repeat(offset);
      expect(foundIn(literals, text)).toEqual(['boundary-literal']);
      const cut = 'x'.repeat(SCAN_CHUNK - offset) + 'boundary-literaX';
      expect(foundIn(literals, cut)).toEqual([]);
    }
  });

  it('compares the longest literal wherever a chunk boundary cuts it, at text ends too', () => {
    const longest = `start-${'é-'.repeat(40)}end`;
    const literals = [longest, 'mid-chunk-literal', 'abc'];
    const scanner = new LiteralScanner(literals);
    for (const cut of [1, 4, 5, 40, longest.length - 4, longest.length - 1]) {
      const before = 'z'.repeat(2 * SCAN_CHUNK - cut);
      const text = `${before}${longest.toUpperCase()}`;
      const found = new Uint8Array(literals.length);
      expect(scanner.scan(text, found)).toBe(1);
      expect([...found]).toEqual([1, 0, 0]);
      // The same text one character short: the literal runs past the end of the text.
      expect(scanner.scan(text.slice(0, -1), new Uint8Array(literals.length))).toBe(0);
      // And cut at its start by the start of the text.
      expect(scanner.scan(text.slice(before.length + 1), new Uint8Array(literals.length))).toBe(0);
    }
  });

  it('scans texts of several chunks with two-byte characters, each chunk alike', () => {
    const literals = ['отправить', 'wp-content/plugins', 'abc'];
    const unit = `${'д'.repeat(SCAN_CHUNK - 7)}abc-wp`;
    const text = `${unit}${unit}-content/PLUGINS${unit}ОТПРАВИТЬ`;
    const found = new Uint8Array(literals.length);
    expect(new LiteralScanner(literals).scan(text, found)).toBe(3);
    expect([...found]).toEqual([1, 1, 1]);
  });

  it('clears a slot for one scan only: the next scan finds its literals again', () => {
    const literals = ['repeated-literal', 'other-literal'];
    const scanner = new LiteralScanner(literals);
    const text = 'repeated-literal '.repeat(3000);
    expect(scanner.scan(text, new Uint8Array(2))).toBe(1);
    expect(scanner.scan(text, new Uint8Array(2))).toBe(1);
    expect(scanner.scan('x other-literal repeated-literal', new Uint8Array(2))).toBe(2);
  });

  it('lists each literal once over several texts, and leaves no mark for the next scan', () => {
    const literals = ['wp-content', 'gtag', 'abc'];
    const scanner = new LiteralScanner(literals);
    const texts = ['x wp-content gtag', 'gtag ABC', '', 'wp-content'];
    expect([...scanner.scanIds(texts)].sort()).toEqual([0, 1, 2]);
    expect([...scanner.scanIds(texts)].sort()).toEqual([0, 1, 2]);
    expect([...scanner.scanIds(['only gtag'])]).toEqual([1]);
    // A scan with literals found before looks for the others only, and leaves no mark either.
    const found = Uint8Array.from([1, 0, 0]);
    expect(scanner.scan('wp-content abc', found)).toBe(1);
    expect([...scanner.scanIds(['wp-content'])]).toEqual([0]);
  });

  it('counts a literal once when found again in a later text of the same scan', () => {
    const literals = ['wp-content/plugins', 'gtag'];
    const scanner = new LiteralScanner(literals);
    const found = new Uint8Array(literals.length);
    expect(scanner.scan('a wp-content/plugins b', found)).toBe(1);
    expect(scanner.scan('wp-content/plugins gtag', found)).toBe(1);
    expect([...found]).toEqual([1, 1]);
  });
});
