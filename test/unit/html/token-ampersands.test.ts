import {
  readMarkup,
  TOKEN,
  tokenHoldsAmpersand,
  tokenKind,
  type MarkupTokens,
} from '../../../src/html/light-document';
import { EDGE_PAGES } from './edge-pages';

/** A TEXT or RCDATA token says whether its text holds an "&": its readers decode only those. */
describe('markup token ampersands', () => {
  const flagged = (html: string): [string, boolean][] => {
    const { kinds, from, to } = readMarkup(html).tokens as MarkupTokens;
    return Array.from(kinds, (entry, k): [string, boolean] => [
      tokenKind(entry) >= TOKEN.TEXT ? html.slice(from[k], to[k]) : '',
      tokenHoldsAmpersand(entry),
    ]);
  };

  it('flag exactly the TEXT and RCDATA texts that hold an "&"', () => {
    let texts = 0;
    for (const page of [
      ...EDGE_PAGES.map((edge) => edge.html),
      '<p>a &amp; b</p>&<noscript>x&y<b>&</b></noscript>',
    ]) {
      const { kinds } = readMarkup(page).tokens as MarkupTokens;
      flagged(page).forEach(([text, ampersand], k) => {
        const kind = tokenKind(kinds[k]);
        if (kind === TOKEN.TEXT || kind === TOKEN.RCDATA) texts++;
        expect(ampersand).toBe((kind === TOKEN.TEXT || kind === TOKEN.RCDATA) && text.includes('&'));
      });
    }
    expect(texts).toBeGreaterThan(100);
  });

  it('leave RAW texts and tags unflagged', () => {
    expect(flagged('<script>a && b</script><a href="?a&b">x&amp;</a><title>T&amp;</title>')).toEqual([
      ['', false],
      ['a && b', false],
      ['', false],
      ['', false],
      ['x&amp;', true],
      ['', false],
      ['', false],
      ['T&amp;', true],
      ['', false],
    ]);
  });
});
