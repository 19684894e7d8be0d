import { WHITESPACE_TO_COLLAPSE } from '../../../src/html/light-document';
import { seededRandom } from './seeded-random';

/** The visible text's collapse leaves single spaces alone: the same text as /\s+/ → " ". */
describe('visible text whitespace collapse', () => {
  it('gives what /\\s+/g → " " gives, on random strings of spaces, other whitespace and letters', () => {
    const alphabet = ['a', 'é', ' ', ' ', '\n', '\t', '\r', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u180e'];
    const next = seededRandom(7);
    for (let t = 0; t < 20_000; t++) {
      let text = '';
      for (let k = next(12); k > 0; k--) text += alphabet[next(alphabet.length)];
      expect(text.replace(WHITESPACE_TO_COLLAPSE, ' ')).toBe(text.replace(/\s+/g, ' '));
    }
  });
});
