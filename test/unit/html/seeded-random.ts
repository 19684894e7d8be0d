/** A small seeded generator for the reading's random-input tests: next(n) is an integer in [0, n). */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n: number): number => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
}
