import {
  versionComponents,
  versionKeyOf,
  versionKeyRange,
} from '../../../src/services/site-index/version-key';
import { versionKeyOf as migrationKeyOf } from '../../../src/storage/migrations/1763920000000-site-enrichment-storage';

function inRange(version: string, range: { from?: string; below?: string } | null): boolean {
  const key = versionKeyOf(version);
  if (!range || key === '') return false;
  return (range.from === undefined || key >= range.from) && (range.below === undefined || key < range.below);
}

describe('version keys', () => {
  it('pads numeric components so that keys sort like versions', () => {
    expect(versionKeyOf('4.9')).toBe('000004.000009');
    expect(versionKeyOf('4.10')).toBe('000004.000010');
    expect(versionKeyOf('4.10') > versionKeyOf('4.9')).toBe(true);
    expect(versionKeyOf('10.0') > versionKeyOf('9.99.99')).toBe(true);
    expect(versionKeyOf('4.9.1') > versionKeyOf('4.9')).toBe(true);
  });

  it('reads the numeric part of decorated versions and ignores versionless ones', () => {
    expect(versionComponents('v3.5.1-beta')).toEqual([3, 5, 1]);
    expect(versionComponents('2.0.0-rc.4')).toEqual([2, 0, 0]);
    expect(versionComponents('1.2.3.4.5.6')).toEqual([1, 2, 3, 4]);
    expect(versionKeyOf('')).toBe('');
    expect(versionKeyOf('latest')).toBe('');
    expect(versionComponents('99999999999')).toEqual([999999]);
  });

  it('compares at the precision a filter was written with', () => {
    const major2 = versionKeyRange('=', '2');
    expect(['2', '2.0', '2.9.1'].map((v) => inRange(v, major2))).toEqual([true, true, true]);
    expect(['1.9', '3', '20.1', ''].map((v) => inRange(v, major2))).toEqual([false, false, false, false]);

    const atMost49 = versionKeyRange('<=', '4.9');
    expect(['4.9', '4.9.1', '4.1', '3', '0.1'].map((v) => inRange(v, atMost49))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['4.10', '5', '', 'dev'].map((v) => inRange(v, atMost49))).toEqual([false, false, false, false]);

    const atLeast49 = versionKeyRange('>=', '4.9');
    expect(['4.9', '4.9.0', '4.10', '5'].map((v) => inRange(v, atLeast49))).toEqual([true, true, true, true]);
    expect(['4.8.9', '4', ''].map((v) => inRange(v, atLeast49))).toEqual([false, false, false]);
  });

  it('refuses a filter version with no number', () => {
    expect(versionKeyRange('=', 'latest')).toBeNull();
  });
});

describe("the site-enrichment migration's frozen copy", () => {
  it('writes the keys the service computes today', () => {
    for (const version of ['4.9', '4.10', 'v3.5.1-beta', '1.2.3.4.5.6', '', 'latest', '99999999999', '6.4.2'])
      expect(migrationKeyOf(version)).toBe(versionKeyOf(version));
  });
});
