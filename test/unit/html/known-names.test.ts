import { lowerName, nameHashStep } from '../../../src/html/known-names';
import { seededRandom } from './seeded-random';

/** Known names come from the table, any other lowercased as before: the same strings either way. */
describe('lowerName', () => {
  const hashed = (text: string, from: number, to: number): number => {
    let hash = 0;
    for (let k = from; k < to; k++) hash = nameHashStep(hash, text.charCodeAt(k));
    return hash;
  };
  const check = (text: string, from: number, to: number): void => {
    const expected = text.slice(from, to).toLowerCase();
    expect(lowerName(text, from, to)).toBe(expected);
    expect(lowerName(text, from, to, hashed(text, from, to))).toBe(expected);
  };

  it('gives known names in any case, and names that only look like them', () => {
    for (const name of ['div', 'DIV', 'Script', 'href', 'HTTP-EQUIV', 'xlink:href', 'h1', 'viewBox'])
      check(`<${name}>`, 1, name.length + 1);
    // Kelvin sign and dotted capital I lowercase to other letters: never a table name.
    for (const name of ['lin\u212a', 'L\u0130NK', 'dív', 'di', 'divv', 'd@v', 'h1 ', 'data-x', ''])
      check(` ${name} `, 1, name.length + 1);
  });

  it('matches toLowerCase on random names of letters, digits and signs', () => {
    const alphabet = 'aAdDiIvVhHrReEfF1-:@`[{\u212a\u0130';
    const next = seededRandom(11);
    const wrong: string[] = [];
    for (let t = 0; t < 20_000; t++) {
      let name = '';
      for (let k = 1 + next(5); k > 0; k--) name += alphabet[next(alphabet.length)];
      const text = `<${name}>`;
      const to = name.length + 1;
      const expected = name.toLowerCase();
      if (lowerName(text, 1, to) !== expected || lowerName(text, 1, to, hashed(text, 1, to)) !== expected)
        wrong.push(name);
    }
    expect(wrong).toEqual([]);
  });
});
