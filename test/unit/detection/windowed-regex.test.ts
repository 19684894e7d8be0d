import { literalWindow, WindowedRegex } from '../../../src/detection/windowed-regex';
import { randomTexts } from '../../helpers/random-texts';

describe('literalWindow', () => {
  it.each([
    ['<(?!svg)[^>]{1,250}\\sdata-v(?:ue)?-', { literal: 'data-v', minOffset: 3, maxOffset: 252, start: '<' }],
    // The longest literal far enough from the start.
    [
      '<link[^>]{0,250} href=[^>]{0,250}?bootstrap',
      { literal: 'bootstrap', minOffset: 11, maxOffset: 511, start: '<' },
    ],
    // Escaped characters are themselves; groups of a sequence are read through.
    ['(<[^>]{1,250})A\\.b\\/c', { literal: 'a.b/c', minOffset: 2, maxOffset: 251, start: '<' }],
    // What consumes nothing before the first character does not move the start.
    ['(?<=x)\\b/[^/]{0,40}abc', { literal: 'abc', minOffset: 1, maxOffset: 41, start: '/' }],
    ['<(?:[^>]{1,20}|x{0,40})abc', { literal: 'abc', minOffset: 1, maxOffset: 41, start: '<' }],
  ])('%s', (source, window) => {
    expect(literalWindow(new RegExp(source, 'i'))).toEqual(window);
  });

  it.each([
    // The literal is the regex's own start (its scan finds it as fast).
    '<html[^>]{0,250} (?:amp|⚡)[^-]',
    '<ab[^>]{0,5}xyz',
    // A start that case folding touches, or that differs between matches.
    'a[^>]{1,250}xyzw',
    '(?:<|/)[^>]{1,250}xyzw',
    '(?:<a|<b)[^>]{1,250}xyzw',
    // Widths not known or too large.
    '<(a)[^>]{1,250}\\1xyzw',
    '<[^>]{1,250}\\cAxyzw',
    '<[^>]{1,250}\\01xyzw',
    '<[^>]{0,2000}xyzw',
    '<[^>]{1,250}x{1,}xyzw',
    // A literal too short, or not ASCII.
    '<[^>]{1,250}xy',
    '<[^>]{1,250}éèêë',
  ])('none for %s', (source) => {
    expect(literalWindow(new RegExp(source, 'i'))).toBeNull();
  });

  it('none for flags other than i', () => {
    const source = '<[^>]{1,250}\\sdata-v-';
    expect(literalWindow(new RegExp(source, 'i'))).not.toBeNull();
    for (const flags of ['', 'gi', 'iy', 'im', 'is', 'iu'])
      expect(literalWindow(new RegExp(source, flags))).toBeNull();
  });
});

describe('WindowedRegex', () => {
  /** What the tests compare: the groups, the index and the text of a match. */
  const view = (match: RegExpExecArray | null, text: string) =>
    match === null ? null : { groups: [...match], index: match.index, input: match.input === text };

  const sources = [
    '<[^>]{1,40}\\sdata-v(?:ue)?-',
    '<(?!svg)[^>]{0,40}data-v(\\w{0,3})',
    '(?<=x)<[^>]{0,40}abc',
    '(?<!a)<\\b[^>]{0,40}?abc\\b',
    '^<[^>]{0,40}abc',
    '<[^<>]{1,40}a\\.b(?=c)',
    '<(?:[^>]{1,20}|x{0,40})abc$',
    '<a{0,40}aaa(a?)',
    '<([^>]{0,20})([^>]{0,20})abc',
  ];
  const pieces = [
    '<',
    '>',
    ' ',
    '\n',
    'data-v-',
    'DATA-V',
    'data-vue-',
    'Data-VUE-',
    'svg',
    'x',
    'a',
    'abc',
    'ABC',
    'aBc',
    'a.b',
    'A.Bc',
    'c',
    'aaaa',
    '<x',
    ' '.repeat(12),
    'z'.repeat(25),
  ];

  it.each(sources)('gives what exec gives for %s', (source) => {
    const regex = new RegExp(source, 'i');
    const window = literalWindow(regex);
    expect(window).not.toBeNull();
    const windowed = new WindowedRegex(regex, window!);
    const differ: string[] = [];
    let matched = 0;
    for (const text of randomTexts(pieces, 4000, 24, 17)) {
      const expected = view(regex.exec(text), text);
      if (expected !== null) matched++;
      if (JSON.stringify(view(windowed.exec(text), text)) !== JSON.stringify(expected)) differ.push(text);
    }
    expect(differ.slice(0, 3)).toEqual([]);
    expect(matched).toBeGreaterThan(20);
  });

  it('finds the leftmost match when windows overlap, near either end and with no literal', () => {
    const regex = /<[^>]{0,40}abc/i;
    const windowed = new WindowedRegex(regex, literalWindow(regex)!);
    for (const text of [
      '',
      '<',
      'abc',
      '<abc',
      'x<abc',
      `${'<'.repeat(50)}abc`,
      `<${'y'.repeat(41)}abc <${'y'.repeat(40)}ABC`,
      `<${'y'.repeat(30)}<y>abc<abcabc`,
      `${'z'.repeat(100)}<zz ABC`,
      `<${'z'.repeat(100)}`,
    ])
      expect([text, view(windowed.exec(text), text)]).toEqual([text, view(regex.exec(text), text)]);
  });

  it('leaves the regex it searches for untouched', () => {
    const regex = /<[^>]{0,40}abc/i;
    regex.lastIndex = 3;
    const windowed = new WindowedRegex(regex, literalWindow(regex)!);
    expect(windowed.exec('<abc <abc')?.index).toBe(0);
    expect(regex.lastIndex).toBe(3);
  });
});
