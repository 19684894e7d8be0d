/**
 * A small deterministic generator of numbers in [0, 1) (a linear congruential one): no seed from
 * the clock, so a failing random case reproduces on every run.
 */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}
