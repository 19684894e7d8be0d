/**
 * CPE 2.3 formatted strings (NISTIR 7695 §6.2): split into their eleven attributes, checked, and
 * given a version. A value in a formatted string leaves letters, digits, `_`, `.` and `-` as they
 * are and quotes every other printable ASCII character with a backslash; an unquoted `*` or `?` is
 * a wildcard, a lone `*` is ANY and a lone `-` is NA.
 */

/** The attributes after `cpe:2.3:`, in their order. */
export const CPE_ATTRIBUTES = [
  'part',
  'vendor',
  'product',
  'version',
  'update',
  'edition',
  'language',
  'swEdition',
  'targetSw',
  'targetHw',
  'other',
] as const;
export type CpeAttribute = (typeof CPE_ATTRIBUTES)[number];

const PREFIX = 'cpe:2.3:';

/** One attribute's value as written: ANY, NA, or printable ASCII with the specials quoted. */
const VALUE =
  /^(?:\*|-|(?:\?+|\*)?(?:[A-Za-z0-9._-]|\\[\x21-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7e])+(?:\?+|\*)?)$/;

/** The attribute values of a formatted string (still quoted), or null when it is not one. */
export function splitCpe23(cpe: string): string[] | null {
  if (!cpe.startsWith(PREFIX)) return null;
  const values: string[] = [];
  let current = '';
  for (let i = PREFIX.length; i < cpe.length; i++) {
    const c = cpe[i];
    if (c === '\\') {
      if (i + 1 >= cpe.length) return null;
      current += c + cpe[i + 1];
      i++;
    } else if (c === ':') {
      values.push(current);
      current = '';
    } else current += c;
  }
  values.push(current);
  if (values.length !== CPE_ATTRIBUTES.length) return null;
  if (!/^[aho]$/.test(values[0])) return null;
  return values.every((v) => VALUE.test(v)) ? values : null;
}

/** Whether `cpe` is a well-formed CPE 2.3 formatted string with a named vendor and product. */
export function isCpe23(cpe: string): boolean {
  const values = splitCpe23(cpe);
  return values !== null && isName(values[1]) && isName(values[2]);
}

/** A vendor or product: a value without wildcards, not ANY or NA. */
function isName(value: string): boolean {
  return value !== '*' && value !== '-' && !/(?<!\\)[*?]/.test(value);
}

/**
 * A detected version as a formatted string's value: lower case (CPE values compare without case, and
 * the NVD dictionary writes them in lower case), every character other than a letter, a digit, `_`,
 * `.` or `-` quoted, a lone `-` quoted (unquoted it would mean NA). Null when it cannot be one: empty,
 * or with a space, a control or a non-ASCII character (CPE values are printable ASCII).
 */
export function cpeValueOf(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  if (value === '' || !/^[\x21-\x7e]+$/.test(value)) return null;
  if (value === '-') return '\\-';
  return value.replace(/[^a-z0-9._-]/g, (c) => `\\${c}`);
}

/**
 * The CPE with `version` in its version slot, the other attributes as they were; null when the CPE
 * is not well formed or the version cannot be written (see cpeValueOf).
 */
export function versionedCpe(cpe: string, version: string): string | null {
  const values = splitCpe23(cpe);
  const value = cpeValueOf(version);
  if (!values || value === null) return null;
  values[3] = value;
  return PREFIX + values.join(':');
}

/** One versioned CPE per version (in their order, without repeats); none without a CPE. */
export function versionedCpes(cpe: string | null | undefined, versions: readonly string[]): string[] {
  if (!cpe) return [];
  const out = new Set<string>();
  for (const version of versions) {
    const versioned = versionedCpe(cpe, version);
    if (versioned) out.add(versioned);
  }
  return [...out];
}
