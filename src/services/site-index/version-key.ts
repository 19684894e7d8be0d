/**
 * A sortable key for technology versions, so version filters run as plain range conditions in SQL
 * (on both databases, in an index): each numeric component of the version is zero-padded to six
 * digits and the components are joined by dots, at most four of them.
 *
 *   "4.9"   → "000004.000009"
 *   "4.10"  → "000004.000010"          (sorts after 4.9, as a version should)
 *   "v3.5.1-beta" → "000003.000005.000001"
 *   ""  / "latest" → ""               (no numeric version: never matches a version filter)
 *
 * A filter compares at the precision it was written with: `=2` is every 2.x, `<=4.9` includes
 * 4.9.1 and excludes 4.10, `>=4.9` includes 4.9.0 (see versionKeyRange).
 */
const COMPONENT_DIGITS = 6;
const MAX_COMPONENTS = 4;
const MAX_COMPONENT = 10 ** COMPONENT_DIGITS - 1;

/** The numeric components of a version string ("v2.0.0-rc.4" → [2, 0, 0]); [] when it has none. */
export function versionComponents(version: string): number[] {
  const match = /(\d{1,12}(?:\.\d{1,12}){0,9})/.exec(version.slice(0, 100));
  if (!match) return [];
  return match[1]
    .split('.')
    .slice(0, MAX_COMPONENTS)
    .map((part) => Math.min(Number(part), MAX_COMPONENT));
}

function keyOf(components: readonly number[]): string {
  return components.map((n) => String(n).padStart(COMPONENT_DIGITS, '0')).join('.');
}

/** The sortable key of a version; '' when the version has no number. */
export function versionKeyOf(version: string): string {
  return keyOf(versionComponents(version));
}

export type VersionOperator = '=' | '>=' | '<=';

/**
 * The key range a version filter selects: `from` inclusive, `below` exclusive (either may be absent).
 * Null when the filter's version has no number (such a filter is refused by the caller).
 */
export function versionKeyRange(
  operator: VersionOperator,
  version: string,
): { from?: string; below?: string } | null {
  const components = versionComponents(version);
  if (components.length === 0) return null;
  const key = keyOf(components);
  // The first key after every version that starts with these components: bump the last one.
  const next = [...components];
  next[next.length - 1] += 1;
  const below = next[next.length - 1] > MAX_COMPONENT ? undefined : keyOf(next);
  switch (operator) {
    case '=':
      return below ? { from: key, below } : { from: key };
    case '>=':
      return { from: key };
    case '<=':
      // Every key sorts above '' only when it has a version: keep versionless rows out.
      return below ? { from: '0', below } : { from: '0' };
  }
}
