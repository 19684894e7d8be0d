import { nameSlot, slotName } from '../../../src/html/known-names';
import { readMarkup, TOKEN, tokenKind, tokenSlot, type MarkupTokens } from '../../../src/html/light-document';
import { EDGE_PAGES } from './edge-pages';

/**
 * START and END tokens carry their name's known-names slot, which the readers index their tables by:
 * a slot must always be the slot of the token's own name, and the common names must have one.
 */
describe('markup token slots', () => {
  const tokensOf = (html: string): MarkupTokens => readMarkup(html).tokens as MarkupTokens;

  it('give a slot only to a START or END token, and only the slot of its name', () => {
    let slotted = 0;
    for (const page of EDGE_PAGES) {
      const { kinds, names } = tokensOf(page.html);
      for (let k = 0; k < kinds.length; k++) {
        const slot = tokenSlot(kinds[k]);
        if (slot < 0) continue;
        slotted++;
        expect([TOKEN.START, TOKEN.END]).toContain(tokenKind(kinds[k]));
        expect(slotName(slot)).toBe(names[k]);
      }
    }
    expect(slotted).toBeGreaterThan(100);
  });

  it('give the common names their slot, in any case, and keep the kinds apart', () => {
    const { kinds, names } = tokensOf('<DIV class=a><Script>x</SCRIPT>t<custom-el></custom-el></div >');
    expect(Array.from(kinds, tokenKind)).toEqual([
      TOKEN.START,
      TOKEN.START,
      TOKEN.RAW,
      TOKEN.END,
      TOKEN.TEXT,
      TOKEN.START,
      TOKEN.END,
      TOKEN.END,
    ]);
    expect(Array.from(kinds, tokenSlot)).toEqual([
      nameSlot('div', 0, 3),
      nameSlot('script', 0, 6),
      -1,
      nameSlot('script', 0, 6),
      -1,
      -1,
      -1,
      nameSlot('div', 0, 3),
    ]);
    expect(names[5]).toBe('custom-el');
  });

  it('leave the slot out where the reading does not take the name from the table', () => {
    // htmlparser2 reads "</ p>" as the end of p, "</p/>" as the end of "p/": no slot either way.
    const { kinds, names } = tokensOf('<p>a</ p><p>b</p/>');
    const ends = Array.from(kinds).flatMap((entry, k) =>
      tokenKind(entry) === TOKEN.END ? [[names[k], tokenSlot(entry)]] : [],
    );
    expect(ends).toEqual([
      ['p', -1],
      ['p/', -1],
    ]);
  });
});
