import { BLANK_PIECE, OTHER_PIECE, PageText, PLAIN_PIECE } from '../../../src/enrichment/page-text';
import { seededRandom } from '../../helpers/seeded-random';

/** What the page document's text was before it was collapsed run by run: the pieces joined, then two regexes. */
function collapsedAtTheEnd(pieces: string[], cap: number): string {
  let taken = 0;
  const kept: string[] = [];
  for (const piece of pieces) {
    if (taken >= cap) continue;
    const part = piece.slice(0, cap - taken);
    kept.push(part);
    taken += part.length;
  }
  return kept
    .join('')
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/\n(?:[ \t]*\n)+/g, '\n');
}

/** What push should say of a piece: the page document trusts it instead of testing the piece again. */
function pieceKind(piece: string, whole: boolean): number {
  if (!whole) return OTHER_PIECE;
  if (/^[ \t\n\v\f\r]*$/.test(piece)) return BLANK_PIECE;
  const trimmed = piece.trim();
  return /\S/.test(piece) &&
    !/\s\s|[^\S ]/.test(trimmed) &&
    trimmed === piece.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '')
    ? PLAIN_PIECE
    : OTHER_PIECE;
}

describe('PageText', () => {
  it('collapses runs across pieces as the whole text would be collapsed', () => {
    const text = new PageText(1000);
    for (const piece of ['\n  ', 'Hello', '\n', ' \t', 'world \n', '\n', '  ', '\u00a0x\t\ty', ' '])
      text.push(piece);
    expect(text.toString()).toBe('\n Hello\n world \n \u00a0x y ');
  });

  it('gives what the joined text and the two regexes gave, on random pieces and caps', () => {
    // A fixed linear congruential sequence: the same pieces on every run.
    let seed = 35;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = [' ', ' ', '\t', '\n', '\n', '\r', '\f', '\v', 'a', 'b', '\u00a0', '\u2028', '.'];
    for (let round = 0; round < 20_000; round++) {
      const cap = 1 + next(40);
      const pieces = Array.from({ length: next(8) }, () =>
        Array.from({ length: next(7) }, () => alphabet[next(alphabet.length)]).join(''),
      );
      const text = new PageText(cap);
      let taken = 0;
      for (const piece of pieces) {
        const found = text.push(piece);
        const whole = taken < cap && taken + piece.length <= cap;
        taken = Math.min(cap, taken + piece.length);
        const expected = pieceKind(piece, whole);
        if (found !== expected) expect({ piece, whole, found }).toEqual({ piece, whole, found: expected });
      }
      expect({ pieces, cap, text: text.toString() }).toEqual({
        pieces,
        cap,
        text: collapsedAtTheEnd(pieces, cap),
      });
    }
  });

  it('reads a range of a source as push reads its copy', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = [' ', ' ', '\t', '\n', '\r', 'a', 'b', '\u00a0', '.'];
    for (let round = 0; round < 5_000; round++) {
      const source = Array.from({ length: next(30) }, () => alphabet[next(alphabet.length)]).join('');
      const cap = 1 + next(30);
      const inPlace = new PageText(cap);
      const copied = new PageText(cap);
      for (let from = 0; from < source.length;) {
        const to = Math.min(source.length, from + 1 + next(8));
        expect(inPlace.pushRange(source, from, to)).toBe(copied.push(source.slice(from, to)));
        from = to;
      }
      expect(inPlace.toString()).toBe(copied.toString());
    }
  });

  it('collapses a run inside a piece once when it holds several of the strings looked for', () => {
    // Long plain text around the runs: few runs for its length, so they are rewritten one by one.
    const plain = 'x'.repeat(400);
    const text = new PageText(10_000, false);
    for (const piece of [plain, 'a \t\n\n  \r\nb', 'c', ' d\n \ne\f', '\n', plain])
      expect(text.push(piece)).not.toBe(PLAIN_PIECE);
    expect(text.toString()).toBe(`${plain}a \nbc d\ne \n${plain}`);
  });

  it('collapses the same text whether its runs are few for its length or many', () => {
    const random = seededRandom(23);
    const next = (n: number): number => Math.floor(random() * n);
    const alphabet = [' ', ' ', '\t', '\n', '\n', '\r', '\f', '\v', 'a', 'b', '\u00a0', '.'];
    for (let round = 0; round < 3_000; round++) {
      // Plain words of 0 to 300 characters between the random pieces set how dense the runs are.
      const filler = 'w'.repeat(next(300));
      const pieces = Array.from({ length: 1 + next(12) }, () =>
        next(3) === 0
          ? filler
          : Array.from({ length: next(9) }, () => alphabet[next(alphabet.length)]).join(''),
      );
      const cap = 1 + next(4_000);
      const text = new PageText(cap, false);
      for (const piece of pieces) text.push(piece);
      expect({ pieces, cap, text: text.toString() }).toEqual({
        pieces,
        cap,
        text: collapsedAtTheEnd(pieces, cap),
      });
    }
  });

  it('collapses the same text when it does not tell plain pieces (the runs found in the joined text)', () => {
    const random = seededRandom(11);
    const next = (n: number): number => Math.floor(random() * n);
    const alphabet = [' ', ' ', ' ', '\t', '\n', '\n', '\r', '\f', '\v', 'a', 'b', '\u00a0', '.'];
    for (let round = 0; round < 20_000; round++) {
      const cap = 1 + next(60);
      const pieces = Array.from({ length: next(10) }, () =>
        Array.from({ length: next(9) }, () => alphabet[next(alphabet.length)]).join(''),
      );
      const text = new PageText(cap, false);
      for (const piece of pieces) {
        const found = text.push(piece);
        if (found === PLAIN_PIECE) expect({ piece, found }).toEqual({ piece, found: OTHER_PIECE });
      }
      expect({ pieces, cap, text: text.toString() }).toEqual({
        pieces,
        cap,
        text: collapsedAtTheEnd(pieces, cap),
      });
    }
  });
});
