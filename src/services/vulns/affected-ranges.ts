import { compareVersions, isComparable, type VersionScheme } from './version-compare';

/**
 * What a vulnerability record says is affected, per product (the stored form, scheme-neutral):
 *
 * - from NVD, one CPE match criterion (`vulnerable: true`): an exact version, or every version
 *   (`*`) bounded by versionStart/End Including/Excluding;
 * - from OSV, one `affected[]` entry: its SEMVER/ECOSYSTEM ranges (introduced / fixed /
 *   last_affected / limit events) and its explicit `versions`.
 */
export type AffectedSpec =
  | {
      kind: 'cpe';
      /** The criterion's version slot: '*' (every version, within the bounds) or one version. */
      version: string;
      startIncluding?: string;
      startExcluding?: string;
      endIncluding?: string;
      endExcluding?: string;
    }
  | {
      kind: 'osv';
      scheme: VersionScheme;
      ranges: OsvEvent[][];
      versions: string[];
    };

export type OsvEvent =
  { introduced: string } | { fixed: string } | { last_affected: string } | { limit: string };

/** certain: the detected version is inside; possible: no comparable version was detected. */
export type MatchCertainty = 'certain' | 'possible';

/** Whether a detected version is affected: certain, possible (no version to compare), or null (not). */
export function matchVersion(spec: AffectedSpec, detected: string): MatchCertainty | null {
  if (!isComparable(detected)) return 'possible';
  return isAffected(spec, detected) ? 'certain' : null;
}

/** Whether a (comparable) version is inside the spec. */
export function isAffected(spec: AffectedSpec, version: string): boolean {
  if (spec.kind === 'cpe') {
    const cmp = (other: string) => compareVersions('dotted', version, other);
    if (spec.version !== '*' && spec.version !== '-' && spec.version !== '')
      return cmp(spec.version.replace(/\\(.)/g, '$1')) === 0;
    if (spec.startIncluding !== undefined && cmp(spec.startIncluding) < 0) return false;
    if (spec.startExcluding !== undefined && cmp(spec.startExcluding) <= 0) return false;
    if (spec.endIncluding !== undefined && cmp(spec.endIncluding) > 0) return false;
    if (spec.endExcluding !== undefined && cmp(spec.endExcluding) >= 0) return false;
    return true;
  }
  const cmp = (a: string, b: string) => compareVersions(spec.scheme, a, b);
  if (spec.versions.some((v) => cmp(version, v) === 0)) return true;
  return spec.ranges.some((events) => inRange(events, version, cmp));
}

const eventVersion = (e: OsvEvent) => Object.values(e)[0] as string;

/** The OSV evaluation: events in version order, introduced opens, fixed / after last_affected closes. */
function inRange(events: OsvEvent[], version: string, cmp: (a: string, b: string) => number): boolean {
  const limits = events.filter((e) => 'limit' in e).map(eventVersion);
  if (limits.some((l) => l !== '*' && cmp(version, l) >= 0)) return false;
  const ordered = events
    .filter((e) => !('limit' in e))
    .sort((a, b) => {
      const va = eventVersion(a);
      const vb = eventVersion(b);
      if (va === '0') return vb === '0' ? 0 : -1;
      if (vb === '0') return 1;
      return cmp(va, vb);
    });
  let affected = false;
  for (const event of ordered) {
    if ('introduced' in event) {
      if (event.introduced === '0' || cmp(version, event.introduced) >= 0) affected = true;
    } else if ('fixed' in event) {
      if (cmp(version, event.fixed) >= 0) affected = false;
    } else if ('last_affected' in event) {
      if (cmp(version, event.last_affected) > 0) affected = false;
    }
  }
  return affected;
}

/** The versions that fix it, as the record states them (NVD: versionEndExcluding; OSV: fixed events). */
export function fixedVersionsOf(spec: AffectedSpec): string[] {
  if (spec.kind === 'cpe') return spec.endExcluding !== undefined ? [spec.endExcluding] : [];
  return spec.ranges.flatMap((events) =>
    events.filter((e): e is { fixed: string } => 'fixed' in e).map((e) => e.fixed),
  );
}
