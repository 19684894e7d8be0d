/**
 * The `max` terms counted most often, those `leftOut` holds aside, in the order a stable sort by
 * count (descending) of all of them gives: ties keep the order they were counted in. Kept as they
 * come, the few best only, instead of an entry array per term sorted whole.
 */
export function mostFrequent(
  counts: ReadonlyMap<string, number>,
  leftOut: readonly string[],
  max: number,
): string[] {
  const terms: string[] = [];
  const termCounts: number[] = [];
  counts.forEach((count, term) => {
    let at = terms.length;
    while (at > 0 && termCounts[at - 1] < count) at--;
    if (at >= max || leftOut.includes(term)) return;
    terms.splice(at, 0, term);
    termCounts.splice(at, 0, count);
    if (terms.length > max) {
      terms.pop();
      termCounts.pop();
    }
  });
  return terms;
}
