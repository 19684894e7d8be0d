import { sortIndices } from '../../../src/detection/sort-indices';
import { seededRandom } from '../../helpers/seeded-random';

/** Distinct indices below `bound`, in a random order. */
function shuffled(random: () => number, count: number, bound: number): number[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(Math.floor(random() * bound));
  return [...picked];
}

describe('sortIndices', () => {
  it('sorts short and long lists ascending, in place, as the built-in sort does', () => {
    const random = seededRandom(35);
    for (const count of [0, 1, 2, 3, 17, 63, 64, 65, 200]) {
      for (let round = 0; round < 20; round++) {
        const list = shuffled(random, count, 10_000);
        const expected = [...list].sort((a, b) => a - b);
        const result = sortIndices(list);
        expect(result).toBe(list);
        expect(list).toEqual(expected);
      }
    }
  });

  it('leaves a sorted list as it is and reverses a descending one', () => {
    expect(sortIndices([1, 4, 9, 30])).toEqual([1, 4, 9, 30]);
    expect(sortIndices([30, 9, 4, 1, 0])).toEqual([0, 1, 4, 9, 30]);
  });
});
