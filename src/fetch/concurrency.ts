/**
 * The one concurrency pool of outbound work (page assets, DNS wordlists, subdomain checks): at
 * most `limit` calls in flight, no new call started once `signal` aborts. Small enough not to
 * warrant a dependency (p-limit is ESM-only, which the CommonJS build cannot load).
 */
async function runPool(
  count: number,
  limit: number,
  run: (index: number) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count && !signal?.aborted) await run(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, count)) }, worker));
}

/** fn over every item, the results in input order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  await runPool(items.length, limit, async (index) => {
    results[index] = await fn(items[index], index);
  });
  return results;
}

/** task for each item until `signal` aborts. Tasks must not throw (they report failure themselves). */
export function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  return runPool(items.length, concurrency, (index) => task(items[index]), signal);
}
