import { cpeValueOf, isCpe23, splitCpe23, versionedCpe, versionedCpes } from '../../../src/detection/cpe';

const JQUERY = 'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:*';

describe('CPE 2.3 formatted strings (NISTIR 7695 §6.2)', () => {
  it('puts the version in the version slot and keeps the other attributes', () => {
    expect(versionedCpe(JQUERY, '3.7.1')).toBe('cpe:2.3:a:jquery:jquery:3.7.1:*:*:*:*:*:*:*');
    expect(versionedCpe('cpe:2.3:a:svelte:svelte:*:*:*:*:*:node.js:*:*', '4.2.0')).toBe(
      'cpe:2.3:a:svelte:svelte:4.2.0:*:*:*:*:node.js:*:*',
    );
  });

  it('leaves letters, digits, _ . - unquoted and quotes every other printable character', () => {
    expect(cpeValueOf('3.5.0-rc.1')).toBe('3.5.0-rc.1');
    expect(cpeValueOf('1.0_beta')).toBe('1.0_beta');
    expect(cpeValueOf('5.0.0+build.7')).toBe('5.0.0\\+build.7');
    expect(cpeValueOf('1:2.4')).toBe('1\\:2.4');
    expect(cpeValueOf('2.4~rc1')).toBe('2.4\\~rc1');
    expect(cpeValueOf('a/b')).toBe('a\\/b');
    expect(cpeValueOf('a\\b')).toBe('a\\\\b');
    expect(cpeValueOf('1.*')).toBe('1.\\*');
    expect(cpeValueOf('1.?')).toBe('1.\\?');
    expect(cpeValueOf('!"#$%&\'()')).toBe('\\!\\"\\#\\$\\%\\&\\\'\\(\\)');
    expect(cpeValueOf('[1]{2}@=,;<>|`^')).toBe('\\[1\\]\\{2\\}\\@\\=\\,\\;\\<\\>\\|\\`\\^');
  });

  it('writes values in lower case, quotes a lone hyphen (else NA) and a lone asterisk (else ANY)', () => {
    expect(cpeValueOf('5.0.0-RC1')).toBe('5.0.0-rc1');
    expect(cpeValueOf('-')).toBe('\\-');
    expect(cpeValueOf('*')).toBe('\\*');
    expect(versionedCpe(JQUERY, '-')).toBe('cpe:2.3:a:jquery:jquery:\\-:*:*:*:*:*:*:*');
  });

  it('gives no value for an empty version, spaces, control or non-ASCII characters', () => {
    for (const bad of ['', '  ', '1 2', '1\t2', '1\u00e9', '\u0000', '2\u200b']) {
      expect(cpeValueOf(bad)).toBeNull();
      expect(versionedCpe(JQUERY, bad)).toBeNull();
    }
  });

  it('splits on unquoted colons only, so quoted characters survive', () => {
    const erlang = 'cpe:2.3:a:erlang:erlang\\/otp:*:*:*:*:*:*:*:*';
    expect(splitCpe23(erlang)?.[2]).toBe('erlang\\/otp');
    expect(versionedCpe(erlang, '26.1')).toBe('cpe:2.3:a:erlang:erlang\\/otp:26.1:*:*:*:*:*:*:*');
    expect(splitCpe23('cpe:2.3:a:a\\:b:c:*:*:*:*:*:*:*:*')?.[1]).toBe('a\\:b');
  });

  it('refuses strings that are not formatted strings', () => {
    for (const bad of [
      'cpe:/a:jquery:jquery',
      'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*',
      'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:*:*',
      'cpe:2.3:x:jquery:jquery:*:*:*:*:*:*:*:*',
      'cpe:2.3:a:jq uery:jquery:*:*:*:*:*:*:*:*',
      'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:\\',
      'cpe:2.3:a:jquery:jq+uery:*:*:*:*:*:*:*:*',
      'cpe:2.3:a:jquery:jquery:**:*:*:*:*:*:*:*',
    ]) {
      expect(splitCpe23(bad)).toBeNull();
      expect(versionedCpe(bad, '1.0')).toBeNull();
    }
    expect(isCpe23(JQUERY)).toBe(true);
    expect(isCpe23('cpe:2.3:a:*:jquery:*:*:*:*:*:*:*:*')).toBe(false);
    expect(isCpe23('cpe:2.3:a:jquery:jq*:*:*:*:*:*:*:*:*')).toBe(false);
    expect(isCpe23('cpe:2.3:a:jquery:jq\\*:*:*:*:*:*:*:*:*')).toBe(true);
  });

  it('gives one versioned CPE per version, without repeats, and none without a CPE', () => {
    expect(versionedCpes(JQUERY, ['3.7.1', '3.7.1', '1.12.4', ''])).toEqual([
      'cpe:2.3:a:jquery:jquery:3.7.1:*:*:*:*:*:*:*',
      'cpe:2.3:a:jquery:jquery:1.12.4:*:*:*:*:*:*:*',
    ]);
    expect(versionedCpes(null, ['1.0'])).toEqual([]);
    expect(versionedCpes(JQUERY, [])).toEqual([]);
  });
});
