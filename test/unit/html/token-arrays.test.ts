import { readMarkup, type MarkupTokens } from '../../../src/html/light-document';

/** The token arrays are sized beforehand and cut to the tokens read: each reading's own, of its length. */
describe('markup token arrays', () => {
  const copy = (tokens: MarkupTokens): MarkupTokens => ({
    kinds: [...tokens.kinds],
    names: [...tokens.names],
    attrs: tokens.attrs.map((a) => (a === null ? null : [...a])),
    from: [...tokens.from],
    to: [...tokens.to],
  });

  it('gives each reading arrays of its own, of its own length, untouched by later readings', () => {
    const first = readMarkup('<div class="a"><p>one<br>two</p><a href="/x">x</a></div>')
      .tokens as MarkupTokens;
    const before = copy(first);
    const second = readMarkup('<ul><li>a<li>b</ul>').tokens as MarkupTokens;
    expect(first).toEqual(before);
    expect(second.kinds).not.toBe(first.kinds);
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
    expect(big.kinds).toHaveLength(120_000);
    expect(readMarkup(small).tokens).toEqual(alone);
  });
});
