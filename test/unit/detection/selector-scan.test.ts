import { parseSelectorList, selectorLiteral } from '../../../src/detection/css-selector';
import { loadFingerprints } from '../../../src/detection';
import { scanSelectorLiterals } from '../../../src/detection/selector-scan';

/** What start-up computed before the scan: the parsed list's literals. */
function parsedLiterals(selector: string): string[] | null {
  const each = parseSelectorList(selector).map(selectorLiteral);
  return each.every((l): l is string => l !== null) ? [...new Set(each)] : null;
}

describe('scanSelectorLiterals', () => {
  it('gives exactly the parsed literals for every selector it accepts in the fingerprints', () => {
    const fingerprints = loadFingerprints();
    let accepted = 0;
    for (const rule of fingerprints.domRules) {
      const scanned = scanSelectorLiterals(rule.selector);
      if (scanned === undefined) continue;
      accepted++;
      expect([rule.selector, scanned]).toEqual([rule.selector, parsedLiterals(rule.selector)]);
      expect(rule.complexes).not.toBeNull();
    }
    // Nearly all selectors are in the scanned subset (that is what makes start-up cheap).
    expect(accepted).toBeGreaterThan(fingerprints.domRules.length * 0.8);
  });

  it('picks the first longest name in the parser order and skips what cannot be in markup', () => {
    for (const selector of [
      'div.ab#abcd.abcd',
      'a[href*="wp-content" i] > span ~ em + b',
      '[data-x|="abcdefgh"] .abc',
      'meta[name="a b c d e"][content=xyz]',
      '*[x], li',
      'ul li.a',
    ])
      expect([selector, scanSelectorLiterals(selector)]).toEqual([selector, parsedLiterals(selector)]);
  });

  it('prefers what the author wrote (ids, classes, value fragments) to tag and attribute names', () => {
    const cases: [string, string[] | null][] = [
      [
        "a[title*='Powered by CheckoutChamp'], link[href*='checkoutchamp.com/']",
        ['checkoutchamp', 'checkoutchamp.com/'],
      ],
      ["link[href*='antd']", ['antd']],
      ["[class*='fa']", ['class']],
      ["meta[name='author'][content*='Dealer Spike']", ['author']],
      ['html.vkui', ['vkui']],
      ['footer > div#abc', ['abc']],
      ['section > div.ab', ['section']],
      ["a[href*='x&amp;yyyy']", ['amp;yyyy']],
      ['b, i', null],
    ];
    for (const [selector, literals] of cases) {
      expect([selector, scanSelectorLiterals(selector)]).toEqual([selector, literals]);
      expect([selector, parsedLiterals(selector)]).toEqual([selector, literals]);
    }
  });

  it('leaves the rest to the parser', () => {
    for (const selector of ['a:not(.b)', 'a\\.b', 'a,', 'a >', 'a[b', '[b="c]', 'a > > b', ''])
      expect(scanSelectorLiterals(selector)).toBeUndefined();
  });
});
