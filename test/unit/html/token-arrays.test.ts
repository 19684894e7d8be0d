import { readMarkup, TOKEN, tokenKind, type MarkupTokens } from '../../../src/html/light-document';

/** The token arrays are sized beforehand and cut to the tokens read: each reading's own, of its length. */
describe('markup token arrays', () => {
  const copy = (tokens: MarkupTokens): MarkupTokens => ({
    kinds: tokens.kinds.slice(),
    names: [...tokens.names],
    attrs: tokens.attrs.map((a) => (a === null ? null : [...a])),
    from: tokens.from.slice(),
    to: tokens.to.slice(),
  });

  it('gives each reading arrays of its own, of its own length, untouched by later readings', () => {
    const first = readMarkup('<div class="a"><p>one<br>two</p><a href="/x">x</a></div>')
      .tokens as MarkupTokens;
    const before = copy(first);
    const second = readMarkup('<ul><li>a<li>b</ul>').tokens as MarkupTokens;
    expect(first).toEqual(before);
    expect(second.kinds.buffer).not.toBe(first.kinds.buffer);
    for (const tokens of [first, second])
      for (const array of [tokens.names, tokens.attrs, tokens.from, tokens.to])
        expect(array).toHaveLength(tokens.kinds.length);
    expect(second.names).toEqual(['ul', 'li', '', 'li', '', 'ul']);
    expect(second.attrs.filter((a) => a !== null)).toEqual([[], [], []]);
  });

  it('reads a small page alike after a page of very many tokens', () => {
    const small = '<p title="t">a &amp; b</p>';
    const alone = copy(readMarkup(small).tokens as MarkupTokens);
    const big = readMarkup('<i>x</i>'.repeat(40_000)).tokens as MarkupTokens;
    // Past the size guessed beforehand: the typed arrays grow and keep every token read.
    expect(big.kinds).toHaveLength(120_000);
    for (const array of [big.names, big.attrs, big.from, big.to]) expect(array).toHaveLength(120_000);
    const last = 120_000 - 3;
    expect(Array.from(big.kinds.subarray(last)).map(tokenKind)).toEqual([TOKEN.START, TOKEN.TEXT, TOKEN.END]);
    expect([big.names[last], big.from[last + 1], big.to[last + 1], big.from[last + 2]]).toEqual([
      'i',
      39_999 * 8 + 3,
      39_999 * 8 + 4,
      39_999 * 8 + 4,
    ]);
    expect(readMarkup(small).tokens).toEqual(alone);
  });

  it('gives tags without attributes one shared empty array, which entity decoding leaves alone', () => {
    const { light, tokens } = readMarkup('<p><b title="a &amp; b"></b><i></i></p>');
    const [p, b, i] = light.elements;
    expect(p.attrs).toEqual([]);
    expect(i.attrs).toBe(p.attrs);
    // The tree decodes values into a copy of the attributes: the token keeps them as written.
    expect(b.attrs).toEqual(['title', 'a & b']);
    expect((tokens as MarkupTokens).attrs[1]).toEqual(['title', 'a &amp; b']);
    expect(readMarkup('<hr>').light.elements[0].attrs).toEqual([]);
  });
});
