import { mostFrequent } from '../../../src/enrichment/most-frequent';
import { seededRandom } from '../../helpers/seeded-random';

/** What the keywords reader did before: every entry, filtered, sorted whole (stable), cut. */
function bySorting(counts: Map<string, number>, leftOut: string[], max: number): string[] {
  return [...counts.entries()]
    .filter(([term]) => !leftOut.includes(term))
    .sort((a, b) => b[1] - a[1])
    .slice(0, max)
    .map(([term]) => term);
}

describe('mostFrequent', () => {
  it('keeps the terms a stable sort by count keeps, ties in the order counted', () => {
    const counts = new Map([
      ['a', 1],
      ['b', 3],
      ['c', 1],
      ['d', 3],
      ['e', 2],
    ]);
    expect(mostFrequent(counts, [], 3)).toEqual(['b', 'd', 'e']);
    expect(mostFrequent(counts, ['d'], 4)).toEqual(['b', 'e', 'a', 'c']);
  });

  it('gives what sorting every entry gives, on random counts', () => {
    const random = seededRandom(6);
    const next = (n: number): number => Math.floor(random() * n);
    for (let round = 0; round < 5_000; round++) {
      const counts = new Map<string, number>();
      for (let k = next(20); k > 0; k--) counts.set(`t${next(30)}`, 1 + next(5));
      const leftOut = Array.from({ length: next(4) }, () => `t${next(30)}`);
      const max = next(8);
      expect(mostFrequent(counts, leftOut, max)).toEqual(bySorting(counts, leftOut, max));
    }
  });
});
