import {
  analyseSource,
  requiredLiterals,
  rewriteForSafety,
  QUANTIFIER_CAP,
} from '../../../src/detection/regex-source';
import { PatternSet } from '../../../src/detection/pattern-set';
import { compilePattern } from '../../../src/detection/pattern';
import { LiteralScanner } from '../../../src/detection/literal-scanner';
import { resolveVersion } from '../../../src/detection/pattern';
import { randomTexts } from '../../helpers/random-texts';

describe('required literals', () => {
  it.each([
    ['<[^>]+data-bem', ['data-bem']],
    ['wp-(?:content|includes)/', ['wp-content/', 'wp-includes/']],
    ['jquery(?:-(\\d+\\.\\d+\\.\\d+))?(?:\\.min)?\\.js', ['jquery']],
    ['a[Bb]cd', ['abcd']],
    ['cdn\\.shopify\\.com', ['cdn.shopify.com']],
    ['https?:\\/\\/.+\\.content-hub\\.acquia\\.com', ['.content-hub.acquia.com']],
  ])('%s needs one of %j', (source, literals) => {
    expect(requiredLiterals(source)).toEqual(literals);
  });

  it('gives none when nothing of three characters must occur', () => {
    expect(requiredLiterals('^(?:a|bc)?x')).toBeNull();
    expect(requiredLiterals('')).toBeNull();
  });
});

describe('further required literals', () => {
  it.each([
    ['<div class="[^"]*aem-Grid', ['<div class="'], [['aem-grid']]],
    [
      '<link [^>]*href="[^"]+use\\.typekit\\.(?:net|com)',
      ['use.typekit.net', 'use.typekit.com'],
      [['<link '], ['href="']],
    ],
    [
      '<script>[\\s\\S]*?go-mpulse\\.net\\/boomerang[\\s\\S]*?</script>',
      ['go-mpulse.net/boomerang'],
      [['</script>'], ['<script>']],
    ],
    // What one alternative, an optional part or a lookahead holds is not required.
    ['(?:abcd|efgh)x{2,}(?:ijkl)?(?=mnop)qrs', ['abcd', 'efgh'], [['qrs']]],
    ['(?:abcd|efgh)(?:ijkl)?(?=mnop)', ['abcd', 'efgh'], []],
    ['wp-content', ['wp-content'], []],
    // Each alternative requires one string of a union: "onsen" (the first) or the second whole,
    // which holds "onsen" too.
    ['(/.*onsen.*min\\.js|.*angular-onsenui\\.min\\.js)', ['min.js', 'angular-onsenui.min.js'], [['onsen']]],
    [
      '(?:<a[^>]+Powered by Reddit|powered by <a[^>]+>reddit<)',
      ['powered by reddit', 'powered by <a'],
      [['powered by reddit', '>reddit<']],
    ],
    [
      '<[^>]+/(?:sys_master|hybr|_ui/(?:.*responsive/)?(?:desktop|common))/',
      ['sys_master', 'hybr', 'desktop', 'common'],
      [['sys_master', 'hybr', '_ui/']],
    ],
    // An alternative with nothing of three characters required leaves no union.
    ['x{2,}(?:abcd.*efgh|ij)qrs', ['qrs'], []],
    // A run too short to look for, with the characters that can follow it.
    ['p5(?:\\.sound)?(?:\\.min)?\\.js', ['.js'], [['p5.']]],
    ['c3(?:\\.min)?(?:-[a-zA-Z0-9]{8})?\\.js', ['.js'], [['c3.', 'c3-']]],
    ['ab(?:\\.min)?cdef', ['cdef'], [['ab.', 'abc']]],
    // A lookahead consumes nothing: what follows it starts the rest.
    ['xy(?=z)[zZ]+cdef', ['cdef'], [['xyz']]],
    // Not when the rest may be empty or may start with too many characters.
    ['xy(?:\\.min)?', null, []],
    ['xy\\w+cdef', ['cdef'], []],
    // A string too short for the table stands by its caseless characters beyond Latin-1.
    ['<html[^>]* (?:amp|⚡)[^-]', ['<html'], [[' amp', '⚡']]],
    ['<html[^>]* (?:amp|é)[^-]', ['<html'], []],
    ['<html[^>]* (?:amp|σ)[^-]', ['<html'], []],
  ])('%s needs one of %j and one of each of %j', (source, literals, further) => {
    const { literals: best, alsoRequired } = analyseSource(source);
    expect(best).toEqual(literals);
    expect(alsoRequired).toEqual(further);
  });

  it('keeps a pattern out of the candidates without its short run and what follows', () => {
    const set = new PatternSet([{ tech: 0, pattern: compilePattern('p5(?:\\.sound)?(?:\\.min)?\\.js') }]);
    expect(set.candidates(['/js/app.js', '/img/p5'])).toEqual([]);
    expect(set.candidates(['/lib/P5.min.js'])).toEqual([0]);
  });

  it('finds, in every text a pattern matches, one literal of its best set and of each further set', () => {
    // Each pattern with pieces of its own to build texts from, so that many of them match.
    const cases: [string, string[]][] = [
      [
        '(/.*onsen.*min\\.js|.*angular-onsenui\\.min\\.js)',
        ['/', 'onsen', 'angular-', 'onsenui', '.min', '.js', 'min.js', 'x'],
      ],
      [
        '(?:<a[^>]+Powered by Reddit|powered by <a[^>]+>reddit<)',
        ['<a ', '>', 'Powered by ', 'reddit', '<', 'x'],
      ],
      ['p5(?:\\.sound)?(?:\\.min)?\\.js', ['p5', 'P5', '.sound', '.min', '.js', '.', 'x']],
      ['c3(?:\\.min)?(?:-[a-zA-Z0-9]{8})?\\.js', ['c3', '-abcd1234', '.min', '.js', '-', 'x']],
      ['ab(?:\\.min)?cdef', ['ab', '.min', 'cdef', '.', 'c', 'x']],
      ['xy(?=z)[zZ]+cdef', ['xy', 'z', 'Z', 'cdef', 'x']],
    ];
    for (const [source, pieces] of cases) {
      const { literals, alsoRequired } = analyseSource(source);
      const regex = new RegExp(source, 'i');
      let matched = 0;
      for (const text of randomTexts(pieces, 3000, 8, 7)) {
        if (!regex.test(text)) continue;
        matched++;
        const lower = text.toLowerCase();
        for (const set of [literals ?? [''], ...alsoRequired])
          expect(set.some((literal) => lower.includes(literal))).toBe(true);
      }
      expect([source, matched > 0]).toEqual([source, true]);
    }
  });

  it('takes as caseless only characters an i regex matches with themselves alone', () => {
    // The rule the analysis applies to a short string's characters beyond Latin-1, checked
    // against every other UTF-16 unit for the characters that pass it.
    const others: string[] = [];
    for (const ch of ['⚡', '\u2603', '\u3042', '\ufffd']) {
      expect(ch.toLowerCase() === ch && ch.toUpperCase() === ch).toBe(true);
      const regex = new RegExp(ch, 'i');
      for (let code = 0; code < 0x10000; code++)
        if (code !== ch.charCodeAt(0) && regex.test(String.fromCharCode(code))) others.push(ch);
    }
    // No character's case mapping leads to one whose own mappings leave it as it is.
    for (let code = 0; code < 0x10000; code++) {
      const upper = String.fromCharCode(code).toUpperCase();
      if (upper.length !== 1 || upper.charCodeAt(0) === code) continue;
      if (upper.toLowerCase() === upper && upper.toUpperCase() === upper) others.push(upper);
    }
    expect(others).toEqual([]);
  });

  it('drops a further set that a kept one implies', () => {
    // The union of "//www.fortune3.com/" and "fortune3.com" is "fortune3.com", which implies the
    // union of "siterate/rate.css" and "fortune3.com".
    const { alsoRequired } = analyseSource(
      '(?:<link [^>]*href="[^/]*//www\\.fortune3\\.com/[^"]*siterate/rate\\.css|Powered by <a [^>]*href="[^"]+fortune3\\.com)',
    );
    expect(alsoRequired).toContainEqual(['fortune3.com']);
    expect(alsoRequired).not.toContainEqual(['siterate/rate.css', 'fortune3.com']);
  });

  it('keeps an alternation out of the candidates without its union on the page', () => {
    const set = new PatternSet([
      { tech: 0, pattern: compilePattern('(/.*onsen.*min\\.js|.*angular-onsenui\\.min\\.js)') },
    ]);
    expect(set.candidates(['/js/app.min.js'])).toEqual([]);
    expect(set.candidates(['/js/app.min.js', '/lib/onsenui.js'])).toEqual([0]);
    expect(set.candidates(['/lib/angular-onsenui.min.js'])).toEqual([0]);
  });

  it('keeps a pattern out of the candidates unless each required set has a literal on the page', () => {
    const set = new PatternSet([{ tech: 0, pattern: compilePattern('<div class="[^"]*aem-Grid') }]);
    expect(set.candidates(['<div class="x">'])).toEqual([]);
    expect(set.candidates(['<div class="x">', '<p class="aem-GridColumn">'])).toEqual([0]);
  });
});

describe('safety rewrite', () => {
  it('bounds unbounded quantifiers and makes "<[^>]*" scans linear, keeping the meaning', () => {
    expect(rewriteForSafety('<[^>]+data-bem')).toBe(`<[^<>]{1,${QUANTIFIER_CAP}}data-bem`);
    expect(rewriteForSafety('a\\+b[+*]c*?')).toBe(`a\\+b[+*]c{0,${QUANTIFIER_CAP}}?`);
    const original = /<[^>]+data-bem/i;
    const rewritten = new RegExp(rewriteForSafety('<[^>]+data-bem'), 'i');
    for (const text of [
      '<div data-bem="x">',
      '<a <b data-bem>',
      '<div class="x">data-bem',
      '<x y="a<b" data-bem>',
    ]) {
      expect(rewritten.test(text)).toBe(original.test(text));
    }
  });
});

describe('literal scanner', () => {
  it('finds every literal case-insensitively in one pass, overlapping ones included', () => {
    const scanner = new LiteralScanner(['he', 'she', 'his', 'hers', 'wp-content']);
    const found = new Uint8Array(5);
    expect(scanner.scan('uSHErs at /WP-Content/x', found)).toBe(4);
    expect([...found]).toEqual([1, 1, 0, 1, 1]);
  });

  it('finds literals across its batch boundaries, after repeats, and shares found across texts', () => {
    // Same 4-character windows ("cont") in two literals: finding one must not hide the other.
    const scanner = new LiteralScanner(['wp-content', 'xcontent', 'abc', 'zzzz']);
    const found = new Uint8Array(4);
    const filler = 'q'.repeat(1019);
    const text = `${filler}WP-CONTENT ${'wp-content '.repeat(300)}${'q'.repeat(2000)}xContent`;
    expect(scanner.scan(text, found)).toBe(2);
    expect([...found]).toEqual([1, 1, 0, 0]);
    expect(scanner.scan('ab abc', found)).toBe(1);
    expect(scanner.scan('abc wp-content', found)).toBe(0);
    expect([...found]).toEqual([1, 1, 1, 0]);
    expect(scanner.scan('', found)).toBe(0);
  });
});

describe('version tags', () => {
  const exec = (re: RegExp, s: string) => re.exec(s) as RegExpExecArray;
  it('replaces back-references and resolves ternaries', () => {
    expect(resolveVersion('\\1', exec(/v([\d.]+)/, 'v1.2.3'))).toBe('1.2.3');
    expect(resolveVersion('\\1?Enterprise:Community', exec(/(ee)?x/, 'x'))).toBe('Community');
    expect(resolveVersion('\\1?Enterprise:Community', exec(/(ee)?x/, 'eex'))).toBe('Enterprise');
    expect(resolveVersion('2', exec(/x/, 'x'))).toBe('2');
    expect(resolveVersion('\\1', exec(/(abcdefghijklmnop)/, 'abcdefghijklmnop'))).toBe('');
  });

  it('reads the groups a template names, whichever they are, and trims what is around them', () => {
    const match = exec(/(a)(b)?(c)(d)(e)(f)(g)(h)(i)(j)(k)/, 'acdefghijk');
    expect(resolveVersion('\\3.\\1', match)).toBe('c.a');
    // \1 is replaced first, in \11 and \10 too (as the reference engine does).
    expect(resolveVersion(' \\11-\\10 ', match)).toBe('a1-a0');
    expect(resolveVersion('\\2?beta:stable', match)).toBe('stable');
    expect(resolveVersion('1.0\n', match)).toBe('1.0');
    expect(resolveVersion('\\12', match)).toBe('a2');
    expect(resolveVersion('\\1?a:b\n', match)).toBe('a');
    expect(resolveVersion(' x\\4?y:z ', match)).toBe('xy');
  });
});
