import { forEachTopicWord, mostFrequent } from '../../../src/enrichment/keywords.extractor';
import { seededRandom } from '../../helpers/seeded-random';

/** The words the keywords extractor counted before its one pass: a regex match, then a filter. */
function topicWordsByRegex(text: string): string[] {
  return (text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).filter(
    (word) => word.length >= 3 && word.length <= 40 && !/^\d+$/.test(word),
  );
}

function topicWords(text: string): string[] {
  const words: string[] = [];
  forEachTopicWord(text, (word) => words.push(word));
  return words;
}

describe('forEachTopicWord', () => {
  it('gives the words of a title', () => {
    expect(topicWords("acme's welding-robots – 2024 cobots, über große ’n")).toEqual([
      "acme's",
      'welding-robots',
      'cobots',
      'über',
      'große',
    ]);
  });

  it('gives what the regex match and the filter gave, on random texts', () => {
    const random = seededRandom(35);
    // ASCII and Latin-1 letters, digits, the word's joiners, a mark (U+0307), letters and a
    // non-letter written as surrogate pairs, lone surrogates, a CJK letter, superscript two.
    const alphabet = [
      'a',
      'B',
      'z',
      '0',
      '7',
      "'",
      '’',
      '-',
      ' ',
      '.',
      'é',
      'ß',
      'ª',
      '²',
      '×',
      '\u0307',
      '𝐀',
      '😀',
      '\ud800',
      '\udc00',
      '漢',
      '\u00a0',
    ];
    for (let round = 0; round < 20_000; round++) {
      const text = Array.from(
        { length: Math.floor(random() * 60) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      const found = topicWords(text);
      const expected = topicWordsByRegex(text);
      if (found.join('\u0000') !== expected.join('\u0000'))
        expect({ text, found }).toEqual({ text, found: expected });
    }
  });
});

describe('mostFrequent', () => {
  /** The terms as the keywords extractor took them before: all sorted (a stable sort), then cut. */
  function mostFrequentBySort(counts: Map<string, number>, listed: string[], max: number): string[] {
    return [...counts.entries()]
      .filter(([term]) => !listed.includes(term))
      .sort((a, b) => b[1] - a[1])
      .slice(0, max)
      .map(([term]) => term);
  }

  it('keeps the most counted, first counted first among equals, none listed', () => {
    const counts = new Map([
      ['alpha', 1],
      ['beta', 3],
      ['gamma', 1],
      ['delta', 3],
      ['acme', 5],
    ]);
    expect(mostFrequent(counts, ['acme'], 3)).toEqual(['beta', 'delta', 'alpha']);
  });

  it('gives what sorting all of them gave, on random counts', () => {
    const random = seededRandom(36);
    for (let round = 0; round < 5_000; round++) {
      const counts = new Map<string, number>();
      const size = Math.floor(random() * 30);
      for (let k = 0; k < size; k++)
        counts.set(`t${Math.floor(random() * 40)}`, 1 + Math.floor(random() * 4));
      const listed = Array.from({ length: Math.floor(random() * 4) }, () => `t${Math.floor(random() * 40)}`);
      const max = Math.floor(random() * 8);
      expect(mostFrequent(counts, listed, max)).toEqual(mostFrequentBySort(counts, listed, max));
    }
  });
});
