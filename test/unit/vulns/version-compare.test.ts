import {
  fixedVersionsOf,
  isAffected,
  matchVersion,
  type AffectedSpec,
} from '../../../src/services/vulns/affected-ranges';
import { cvss3BaseScore } from '../../../src/services/vulns/cvss';
import { compareDotted, compareVersions } from '../../../src/services/vulns/version-compare';

const sign = (n: number) => Math.sign(n) + 0;

describe('version comparison per scheme', () => {
  it.each([
    ['6.4', '6.4.0', 0],
    ['6.4', '6.4.1', -1],
    ['6.4.10', '6.4.9', 1],
    ['3.5.0-rc.1', '3.5.0', -1],
    ['3.5.0-rc.1', '3.5.0-rc.2', -1],
    ['3.5.0-beta', '3.5.0-rc.1', -1],
    ['3.5.0-rc.1', '3.4.9', 1],
    ['1.2.3.4', '1.2.3', 1],
    ['1.2.3.0', '1.2.3', 0],
    ['1.2.3.4', '1.2.4', -1],
    ['v2.0', '2.0.0', 0],
    ['1.0.2k', '1.0.2', 1],
    ['1.0.2k', '1.0.3', -1],
    ['1.0.2a', '1.0.2', -1],
    ['10.0', '9.9.9', 1],
  ])('dotted: %s vs %s is %d', (a, b, expected) => {
    expect(sign(compareDotted(a, b))).toBe(expected);
    expect(sign(compareDotted(b, a))).toBe(sign(-expected));
  });

  it.each([
    ['3.5.0-rc.1', '3.5.0', -1],
    ['3.5.0-rc.10', '3.5.0-rc.9', 1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0+build.1', '1.0.0', 0],
    // Not semver: compared dotted (a four-part version, a two-part one).
    ['1.2.3.4', '1.2.3', 1],
    ['6.4', '6.4.0', 0],
  ])('semver: %s vs %s is %d', (a, b, expected) => {
    expect(sign(compareVersions('semver', a, b))).toBe(expected);
  });
});

describe('affected ranges', () => {
  const nvd = (bounds: Partial<Extract<AffectedSpec, { kind: 'cpe' }>>): AffectedSpec => ({
    kind: 'cpe',
    version: '*',
    ...bounds,
  });

  it('applies every NVD bound operator', () => {
    const spec = nvd({ startIncluding: '1.2', endExcluding: '3.5.0' });
    expect(['1.2', '1.2.0', '3.4.1', '3.5.0-rc.1'].map((v) => isAffected(spec, v))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['1.1.4', '3.5.0', '3.5', '3.6.0'].map((v) => isAffected(spec, v))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    const excl = nvd({ startExcluding: '6.4', endIncluding: '6.4.2' });
    expect(['6.4', '6.4.0', '6.4.1', '6.4.2', '6.4.3'].map((v) => isAffected(excl, v))).toEqual([
      false,
      false,
      true,
      true,
      false,
    ]);
    expect(isAffected(nvd({}), '0.0.1')).toBe(true);
    expect(isAffected({ kind: 'cpe', version: '4.9.1' }, '4.9.1.0')).toBe(true);
    expect(isAffected({ kind: 'cpe', version: '4.9.1' }, '4.9.10')).toBe(false);
    expect(fixedVersionsOf(nvd({ endExcluding: '3.5.0' }))).toEqual(['3.5.0']);
  });

  it('applies OSV events: introduced, fixed, last_affected, limit, and explicit versions', () => {
    const spec: AffectedSpec = {
      kind: 'osv',
      scheme: 'semver',
      ranges: [
        [{ introduced: '0' }, { fixed: '1.5.0' }, { introduced: '2.0.0' }, { last_affected: '2.3.1' }],
      ],
      versions: ['9.9.9'],
    };
    const got = ['0.1.0', '1.4.9', '1.5.0', '1.7.0', '2.0.0-rc.1', '2.0.0', '2.3.1', '2.3.2', '9.9.9'].map(
      (v) => isAffected(spec, v),
    );
    expect(got).toEqual([true, true, false, false, false, true, true, false, true]);
    const limited: AffectedSpec = {
      kind: 'osv',
      scheme: 'dotted',
      ranges: [[{ introduced: '1.0' }, { limit: '1.8' }]],
      versions: [],
    };
    expect(['0.9', '1.0', '1.7.9', '1.8'].map((v) => isAffected(limited, v))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(fixedVersionsOf(spec)).toEqual(['1.5.0']);
  });

  it('reports a missing or wordy version as possibly affected, never affected', () => {
    const spec = nvd({ endExcluding: '3.5.0' });
    expect(matchVersion(spec, '')).toBe('possible');
    expect(matchVersion(spec, 'latest')).toBe('possible');
    expect(matchVersion(spec, '3.4.1')).toBe('certain');
    expect(matchVersion(spec, '3.5.1')).toBeNull();
  });
});

describe('CVSS v3 base score', () => {
  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 9.8],
    ['CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H', 7.2],
    ['CVSS:3.0/AV:L/AC:H/PR:L/UI:N/S:U/C:N/I:N/A:N', 0],
  ])('%s scores %d', (vector, score) => expect(cvss3BaseScore(vector)).toBe(score));
  it('gives null for a malformed vector', () => expect(cvss3BaseScore('CVSS:3.1/AV:X')).toBeNull());
});
