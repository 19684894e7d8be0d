import { PACING_WINDOW_MS } from '../../src/fetch/host-pacing';

/** Most of `times` falling in any window of PACING_WINDOW_MS (a sliding window, stricter than calendar seconds). */
export function mostInAnyWindow(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= PACING_WINDOW_MS) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
