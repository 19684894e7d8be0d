import { LinkResolver } from '../../../src/fetch/link-resolver';

/** What the extraction did for every value before the fast forms: the URL parser, fragment dropped. */
function parsed(value: string, base: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed || /^(javascript|mailto|tel|data|about|blob):/i.test(trimmed)) return undefined;
  try {
    const url = new URL(trimmed, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

const BASES = [
  'https://example.com/',
  'https://example.com',
  'http://Example.COM:8080/a/b/c.html?x=1#f',
  'https://u:p@h.example/dir/',
  'https://h.example/a?',
  'https://h.example/a#',
  'http://xn--bcher-kva.example/%7Efoo/',
  'mailto:x@y',
  'not a url',
];

describe('LinkResolver', () => {
  it('resolves the common forms as the URL parser does', () => {
    const resolver = new LinkResolver('https://shop.example/en/list.html?page=1#top');
    expect(resolver.resolve(' /cart?id=3#x ')).toBe('https://shop.example/cart?id=3');
    expect(resolver.resolve('item/7.html')).toBe('https://shop.example/en/item/7.html');
    expect(resolver.resolve('?page=2')).toBe('https://shop.example/en/list.html?page=2');
    expect(resolver.resolve('#reviews')).toBe('https://shop.example/en/list.html?page=1');
    expect(resolver.resolve('//cdn.example')).toBe('https://cdn.example/');
    expect(resolver.resolve('//cdn.example/js/a.js?v=2&w=3#f')).toBe('https://cdn.example/js/a.js?v=2&w=3');
    expect(new LinkResolver('http://h.example/').resolve('//cdn.example/x?y')).toBe('http://cdn.example/x?y');
    expect(resolver.resolve('http://other.example?q')).toBe('http://other.example/?q');
    expect(resolver.resolve('../up/./x')).toBe('https://shop.example/up/x');
    expect(resolver.resolve('HTTPS://A.Example:443/%7e')).toBe('https://a.example/%7e');
    expect(resolver.resolve('mailto:a@b.example')).toBeUndefined();
    expect(resolver.resolve('ftp://files.example/')).toBeUndefined();
    expect(new LinkResolver('https://h.example/a?').resolve('#x')).toBe(parsed('#x', 'https://h.example/a?'));
    expect(new LinkResolver('not a url').resolve('https://h.example/')).toBeUndefined();
  });

  it('resolves leading "./" and "../" segments as the URL parser does, never above the root', () => {
    const base = 'https://shop.example/en/list/page.html?x=1';
    const resolver = new LinkResolver(base);
    const values = [
      './a.png',
      './',
      '././a/b.css?v=1#f',
      '../a.png',
      '../../a.png',
      '../../../../a.png',
      '.././a:b',
      './a:b',
      '..//a',
      './?q=1',
      '../?q',
      './a/../b',
      './.',
      '../..',
      './.hidden',
      './%2e%2e/x',
    ];
    for (const value of values)
      expect([value, resolver.resolve(value)]).toEqual([value, parsed(value, base)]);
    expect(resolver.resolve('../../a.png')).toBe('https://shop.example/a.png');
    expect(new LinkResolver('https://h.example').resolve('../../x')).toBe('https://h.example/x');
  });

  it('gives what the URL parser gave, on random values and bases', () => {
    const parts = [
      '/',
      '//',
      '.',
      '..',
      './',
      '../',
      'a',
      'B',
      '1',
      '-',
      '--',
      'xn--',
      'ex',
      'com',
      '?',
      '#',
      ':',
      '@',
      '%',
      '%2e',
      '%2E',
      '%41',
      ' ',
      '\t',
      '\n',
      '\\',
      "'",
      '"',
      '<',
      '^',
      '`',
      '{',
      '|',
      '~',
      '!',
      '$',
      '&',
      '(',
      '*',
      '+',
      ',',
      ';',
      '=',
      '_',
      'é',
      '\u00a0',
      'http:',
      'https:',
      'HTTP:',
      'http://',
      'https://',
      'mailto:',
      'javascript:',
      'ftp:',
      'file:',
      '0x7f',
      '127',
      '[::1]',
      ':80',
      ':443',
      'www.',
      '.example',
      'index.html',
    ];
    const prefixes = ['https://', 'http://', '//', '/', '', ''];
    // A fixed linear congruential sequence: the same values on every run.
    let seed = 35;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const resolvers = BASES.map((base) => [base, new LinkResolver(base)] as const);
    const differences: string[] = [];
    for (let round = 0; round < 100_000; round++) {
      let value = prefixes[next(prefixes.length)];
      for (let k = 1 + next(7); k > 0; k--) value += parts[next(parts.length)];
      const [base, resolver] = resolvers[next(resolvers.length)];
      const expected = parsed(value, base);
      if (resolver.resolve(value) !== expected) differences.push(`${JSON.stringify(value)} on ${base}`);
    }
    expect(differences).toEqual([]);
  });
});
