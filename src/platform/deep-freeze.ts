/**
 * Freezes a value and everything reachable from it (own enumerable properties), except the
 * properties `keep` names: for values kept in memory and shared between requests, so that one
 * request cannot change what the next is answered. Returns the value.
 */
export function deepFreeze<T>(value: T, keep: readonly string[] = []): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const [key, child] of Object.entries(value)) if (!keep.includes(key)) deepFreeze(child, keep);
  }
  return value;
}
