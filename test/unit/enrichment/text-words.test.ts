import { wordsOf } from '../../../src/enrichment/text-words';
import { seededRandom } from '../../helpers/seeded-random';

/** The words as the keywords reader found them before: one Unicode regex over the text. */
function wordsByRegex(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
}

/** ASCII, accented and other scripts' letters, digits of other scripts, joiners, surrogate pairs (letters and not), lone surrogates. */
const FRAGMENTS = [
  'a',
  'Z',
  '7',
  ' ',
  "'",
  '’',
  '-',
  '_',
  '.',
  '|',
  'é',
  'ß',
  'ü',
  '日本',
  'ب',
  '٣',
  '½',
  '²',
  '\u00a0',
  '\u{1d400}',
  '\u{20000}',
  '\u{1f600}',
  '\ud800',
  '\udc00',
  'word',
  "don't",
  'state-of-the-art',
  '—',
  '\n',
];

describe('wordsOf', () => {
  it('finds the words the Unicode regex finds', () => {
    const random = seededRandom(35);
    const next = (n: number): number => Math.floor(random() * n);
    for (let n = 0; n < 5_000; n++) {
      let text = '';
      for (let k = next(14); k > 0; k--) text += FRAGMENTS[next(FRAGMENTS.length)];
      expect(wordsOf(text)).toEqual(wordsByRegex(text));
    }
  });

  it('reads letters and digits beyond ASCII and outside the BMP', () => {
    expect(wordsOf("l'été 2024 – naïve’s \u{1d400}x 日本語 ٣٤ \u{1f600}ok")).toEqual([
      "l'été",
      '2024',
      'naïve’s',
      '\u{1d400}x',
      '日本語',
      '٣٤',
      'ok',
    ]);
  });

  it('starts no word with a joiner and keeps the joiners inside and at the end', () => {
    expect(wordsOf("-a-b- 'c' ’d’")).toEqual(['a-b-', "c'", 'd’']);
  });
});
