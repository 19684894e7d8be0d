export interface EventuallyOptions {
  /** What is waited for, named in the error on timeout ("the listReady event"). */
  describe?: string;
  /** Only stops a broken test from hanging; nothing is asserted about how long it took. */
  timeoutMs?: number;
  /** The pause between two checks. */
  intervalMs?: number;
}

/** What a check returns while the thing it waits for has not happened yet. */
type NotYet = undefined | null | false;

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_INTERVAL_MS = 25;

/**
 * The one poll-until of the tests: calls `check` until it returns a value (anything but
 * undefined, null or false) without throwing, and returns that value. A check may be a condition
 * (`() => events.length >= 2`), a probe (`() => events.find(…)`, `async () => (await jobs()).find(…)`)
 * or assertions (`() => { expect(…); return true; }`). On timeout it throws naming what was waited
 * for, with the check's last error or value, so a failure says what never happened.
 *
 * Use it for what a test cannot be told of directly (a row written by another process, a listener
 * registered inside the service); when there is an event or a promise, wait for that instead.
 */
export async function eventually<T>(
  check: () => T | NotYet | Promise<T | NotYet>,
  options: EventuallyOptions | string = {},
): Promise<T> {
  const {
    describe = 'a condition',
    timeoutMs = DEFAULT_TIMEOUT_MS,
    intervalMs = DEFAULT_INTERVAL_MS,
  } = typeof options === 'string' ? { describe: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    let cause: unknown;
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
      last = `the check returned ${String(value)}`;
    } catch (error) {
      cause = error;
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${describe}; last: ${last}`, { cause });
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
