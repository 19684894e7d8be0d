import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent,
 * for the service's long-running processes (the API and the workers). V8's own factor goes up to
 * 4x when the process allocates fast: under 50 connections of stored lookups the API's 120 MB of
 * live objects grew to 330 MB of heap before it collected, 450-540 MB RSS. At 1.3x it collects
 * sooner, at a cost of under 2% of the time in major collections (docs/performance.md, Memory of
 * the API and the workers).
 */
export const HEAP_GROWING_PERCENT = 30;

/**
 * Sets the old generation's growth (V8 reads the flag each time it sets the next limit, so it
 * applies from here on), unless the process was started with its own `--heap-growing-percent`
 * (`=0` gives V8's own policy back). Returns whether it set it.
 */
export function boundHeapGrowth(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): boolean {
  if ([...execArgv, nodeOptions].some((arg) => /heap[-_]growing[-_]percent/.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
