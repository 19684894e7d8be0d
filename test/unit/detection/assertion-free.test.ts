import { isAssertionFree } from '../../../src/detection/assertion-free';

describe('isAssertionFree: a regex that misses a string misses its substrings', () => {
  it('plain patterns, classes, groups and escapes are free of assertions', () => {
    for (const source of [
      'Powered by Bump',
      '(HiSecOS-|HiOS-.{1,250}-)(\\d{1,250}\\.\\d{1,250})',
      '[^<]{1,250}x',
      '[\\b]x',
      '[^]',
      '\\$\\^',
      '(?:a|b)\\1',
      '[$^]',
    ])
      expect([source, isAssertionFree(new RegExp(source, 'i'))]).toEqual([source, true]);
  });

  it('anchors, word boundaries, lookarounds, named groups and stateful flags are not', () => {
    for (const source of [
      '^inner',
      'x$',
      '\\bword',
      'a\\Bb',
      'a(?=b)',
      'a(?!b)',
      '(?<=a)b',
      '(?<!a)b',
      '(?<n>a)',
      '\\[^a',
    ])
      expect([source, isAssertionFree(new RegExp(source, 'i'))]).toEqual([source, false]);
    expect(isAssertionFree(/abc/gi)).toBe(false);
    expect(isAssertionFree(/abc/y)).toBe(false);
  });

  it('agrees with the regex on random substrings of strings it misses', () => {
    const free = [/b+c/i, /[^a]{2}d/i, /(x|yz)\1/i, /a.{1,3}z/i];
    const strings = ['abbbd aad xx yzyz', 'a  z', 'qq bd xyz ayyz'];
    for (const regex of free) {
      expect(isAssertionFree(regex)).toBe(true);
      for (const whole of strings) {
        if (regex.test(whole)) continue;
        for (let from = 0; from < whole.length; from++)
          for (let to = from; to <= whole.length; to++) expect(regex.test(whole.slice(from, to))).toBe(false);
      }
    }
  });
});
