import { tokenCount } from '../../../src/detection/css-selector';
import { seededRandom } from '../../helpers/seeded-random';

/** The reference: the tokens `split(/\s+/)` gives, counted. */
function splitCount(value: string, token: string): number {
  return value.split(/\s+/).filter((t) => t === token).length;
}

describe('tokenCount, the class and ~= test without splitting', () => {
  it('counts what split(/\\s+/) gives, whitespace of every kind included', () => {
    const pieces = ['a', 'b', 'ab', ' ', '  ', '\t', '\n', '\u00a0', '\u2003', '\ufeff', '-', 'é'];
    const tokens = ['a', 'b', 'ab', 'a b', '', 'é', 'a-b', '\u00a0'];
    const random = seededRandom(7);
    const wrong: [string, string, number][] = [];
    for (let n = 0; n < 20_000; n++) {
      let value = '';
      const length = Math.floor(random() * 8);
      for (let k = 0; k < length; k++) value += pieces[Math.floor(random() * pieces.length)];
      const token = tokens[Math.floor(random() * tokens.length)];
      // An empty token or one with whitespace is no class name: it equals no token.
      const expected = token === '' || /\s/.test(token) ? 0 : splitCount(value, token);
      if (tokenCount(value, token) !== expected) wrong.push([value, token, expected]);
    }
    expect(wrong).toEqual([]);
  });
});
