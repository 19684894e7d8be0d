/**
 * Sorts distinct non-negative integers (indices) ascending, in place. A page's candidate lists are
 * short (a few dozen indices, mostly in order already): an insertion sort reads each once or twice,
 * where `Array.prototype.sort` calls a comparator function per comparison. A long list goes to the
 * built-in sort.
 */
export function sortIndices(list: number[]): number[] {
  const length = list.length;
  if (length > INSERTION_LIMIT) return list.sort(ascending);
  for (let k = 1; k < length; k++) {
    const value = list[k];
    let at = k - 1;
    while (at >= 0 && list[at] > value) {
      list[at + 1] = list[at];
      at--;
    }
    list[at + 1] = value;
  }
  return list;
}

/** Above this length the built-in sort's fewer comparisons win over the insertion sort's shifts. */
const INSERTION_LIMIT = 64;

function ascending(a: number, b: number): number {
  return a - b;
}
