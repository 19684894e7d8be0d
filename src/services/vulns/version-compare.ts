import semver from 'semver';

/**
 * Version comparison per scheme, for matching detected versions against vulnerability ranges.
 *
 * - `dotted` (NVD/CPE ranges, and OSV ECOSYSTEM ranges outside npm): components split on `.`, `-`,
 *   `_`, `+` and at digit/letter boundaries; numbers compare as numbers; a missing component counts
 *   as 0 (`6.4` equals `6.4.0`); a pre-release word (dev, alpha, beta, pre, preview, rc, …) sorts
 *   below the release it precedes (`3.5.0-rc.1` < `3.5.0`) and below any number in its place; any
 *   other word (a patch letter: `1.0.2k`) sorts above the release and below the next number.
 * - `semver` (OSV SEMVER ranges and the npm ecosystem): semver 2.0 with pre-releases, through the
 *   semver package; a version that is not semver (four parts, `6.4`) is compared as `dotted`.
 */
export type VersionScheme = 'dotted' | 'semver';

type Token = number | string;

/** Pre-release words, lowest first; each sorts below the release that follows it. */
const PRE_RELEASE = [
  'dev',
  'snapshot',
  'a',
  'alpha',
  'b',
  'beta',
  'm',
  'milestone',
  'pre',
  'preview',
  'rc',
  'cr',
];

function tokensOf(version: string): Token[] {
  const out: Token[] = [];
  for (const match of version
    .trim()
    .toLowerCase()
    .replace(/^v(?=\d)/, '')
    .matchAll(/\d+|[a-z]+/g)) {
    const part = match[0];
    out.push(/^\d/.test(part) ? Number(part) : part);
  }
  return out;
}

const preRank = (word: string) => PRE_RELEASE.indexOf(word);

/** How a token compares with "nothing here" (the end of the shorter version). */
function againstEnd(token: Token): number {
  if (typeof token === 'number') return token === 0 ? 0 : 1;
  return preRank(token) >= 0 ? -1 : 1;
}

function compareTokens(a: Token, b: Token): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  if (typeof a === 'number') return 1;
  if (typeof b === 'number') return -1;
  const ra = preRank(a);
  const rb = preRank(b);
  if (ra >= 0 && rb >= 0) return Math.sign(ra - rb);
  if (ra >= 0) return -1;
  if (rb >= 0) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Dotted comparison (see the module comment): negative, zero or positive. */
export function compareDotted(a: string, b: string): number {
  const ta = tokensOf(a);
  const tb = tokensOf(b);
  for (let i = 0; i < Math.max(ta.length, tb.length); i++) {
    if (i >= ta.length) {
      // a ended: trailing zeros are equal, a pre-release word makes b lower.
      const rest =
        tb
          .slice(i)
          .map(againstEnd)
          .find((c) => c !== 0) ?? 0;
      return rest === 0 ? 0 : -rest;
    }
    if (i >= tb.length)
      return (
        ta
          .slice(i)
          .map(againstEnd)
          .find((c) => c !== 0) ?? 0
      );
    const c = compareTokens(ta[i], tb[i]);
    if (c !== 0) return c;
  }
  return 0;
}

function asSemver(version: string): semver.SemVer | null {
  return semver.parse(version.trim().replace(/^v(?=\d)/, ''), { loose: true });
}

/** Comparison in a scheme: negative, zero or positive. */
export function compareVersions(scheme: VersionScheme, a: string, b: string): number {
  if (scheme === 'semver') {
    const sa = asSemver(a);
    const sb = asSemver(b);
    if (sa && sb) return semver.compare(sa, sb);
  }
  return compareDotted(a, b);
}

/** Whether a detected version has a number to compare (an empty or wordy one can only be "possible"). */
export function isComparable(version: string): boolean {
  return /\d/.test(version);
}

/** Versions in version order (dotted comparison; equal ones by their text): how lists of a site's versions are shown. */
export function inVersionOrder(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareDotted(a, b) || (a < b ? -1 : a > b ? 1 : 0));
}
