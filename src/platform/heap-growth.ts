import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent.
 * V8's own factor goes up to 4x when a process allocates fast: under 50 connections of stored
 * lookups the API's 120 MB of live objects grew to 330 MB of heap before it collected, 450-560 MB
 * RSS. Measured in docs/performance.md (Memory of the API and the workers):
 * - the API at 1.5x: 270-275 MB, requests/s as before; at 1.3x 250 MB, but up to a quarter fewer
 *   requests/s on a quiet machine (full collections twice as often);
 * - a worker at 1.3x: its throughput is crawl jobs bound by fetches and parsing, not collections.
 */
export const HEAP_GROWING_PERCENT = { api: 50, worker: 30 } as const;

/**
 * Sets the old generation's growth (V8 reads the flag each time it sets the next limit, so it
 * applies from here on), unless the process was started with its own `--heap-growing-percent`
 * (`=0` gives V8's own policy back). Returns whether it set it.
 */
export function boundHeapGrowth(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): boolean {
  if ([...execArgv, nodeOptions].some((arg) => /heap[-_]growing[-_]percent/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
