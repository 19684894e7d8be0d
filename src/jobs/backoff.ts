/**
 * Exponential backoff: the nominal delay doubles from `baseMs` per failed attempt up to `capMs`.
 * Jitter only lengthens a delay (up to `jitter` times more), so retries of many jobs that failed
 * together spread out while the nominal schedule stays a lower bound a caller can rely on
 * (callbacks promise to keep retrying for a whole window).
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** Extra random fraction added to each delay, 0..1. */
  jitter?: number;
}

export const DEFAULT_JITTER = 0.25;

/** The delay without jitter after failed attempt number `attempt` (1-based). */
export function nominalDelayMs(policy: BackoffPolicy, attempt: number): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 40);
  return Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
}

export function backoffDelayMs(
  policy: BackoffPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const nominal = nominalDelayMs(policy, attempt);
  return Math.round(nominal * (1 + (policy.jitter ?? DEFAULT_JITTER) * random()));
}

/**
 * The number of attempts whose retries, waiting at least the nominal delays, span `windowMs`:
 * the first attempt plus as many retries as it takes for the waits between them to add up.
 */
export function attemptsToSpan(policy: BackoffPolicy, windowMs: number): number {
  let waited = 0;
  let attempts = 1;
  while (waited < windowMs) {
    waited += nominalDelayMs(policy, attempts);
    attempts++;
  }
  return attempts;
}
