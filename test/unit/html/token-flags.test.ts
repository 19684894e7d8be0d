import {
  readMarkup,
  TOKEN,
  TOKEN_FLAG,
  tokenKind,
  tokenSlot,
  type MarkupTokens,
} from '../../../src/html/light-document';
import { nameSlot } from '../../../src/html/known-names';
import { EDGE_PAGES } from './edge-pages';

/**
 * START tokens say whether their attributes hold itemprop/itemscope or srcset: the readers trust
 * the flags and skip the attributes of the other tags, so a flag must be set exactly when the
 * attribute is there.
 */
describe('markup token flags', () => {
  const tokensOf = (html: string): MarkupTokens => readMarkup(html).tokens as MarkupTokens;
  const FLAG_BITS = TOKEN_FLAG.MICRODATA | TOKEN_FLAG.SRCSET;

  const expectedFlags = (raw: readonly string[]): number => {
    let flags = 0;
    for (let k = 0; k < raw.length; k += 2) {
      if (raw[k] === 'itemprop' || raw[k] === 'itemscope') flags |= TOKEN_FLAG.MICRODATA;
      if (raw[k] === 'srcset') flags |= TOKEN_FLAG.SRCSET;
    }
    return flags;
  };

  it('flag a START token exactly when its attributes hold those names', () => {
    let flagged = 0;
    const pages = [
      ...EDGE_PAGES.map((page) => page.html),
      '<div ItemScope itemtype="x"><span ITEMPROP=name>n</span><img SrcSet="a.png 1x" src=b></div>',
      '<img srcset><p itemprop="a" itemprop="b"><i data-srcset=x itemprops=y>',
    ];
    for (const html of pages) {
      const { kinds, attrs } = tokensOf(html);
      for (let k = 0; k < kinds.length; k++) {
        const flags = kinds[k] & FLAG_BITS;
        if (tokenKind(kinds[k]) !== TOKEN.START) {
          expect(flags).toBe(0);
          continue;
        }
        expect(flags).toBe(expectedFlags(attrs[k] as string[]));
        if (flags !== 0) flagged++;
      }
    }
    expect(flagged).toBeGreaterThanOrEqual(5);
  });

  it('keep the kind and the slot of a flagged token', () => {
    const { kinds } = tokensOf('<img srcset="a 1x" itemprop=image>');
    expect(kinds[0] & FLAG_BITS).toBe(FLAG_BITS);
    expect(tokenKind(kinds[0])).toBe(TOKEN.START);
    expect(tokenSlot(kinds[0])).toBe(nameSlot('img', 0, 3));
  });
});
