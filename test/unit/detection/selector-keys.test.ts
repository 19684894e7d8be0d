import { parseSelectorList } from '../../../src/detection/css-selector';
import { selectorKeysOf } from '../../../src/detection/selector-keys';

describe('selectorKeysOf', () => {
  it('lists the last compounds tags and every compounds ids, classes and attribute names, once each', () => {
    const keys = selectorKeysOf(
      parseSelectorList('footer#f.site > div[data-x="1"] span.a, span.a[title], #g A[HREF*=x]:not(.skip)'),
    );
    expect(keys).toEqual({
      tags: ['span', 'a'],
      ids: ['f', 'g'],
      classes: ['site', 'a'],
      names: ['data-x', 'title', 'href'],
    });
  });

  it('an unreadable selector lists nothing', () => {
    expect(selectorKeysOf([])).toEqual({ tags: [], ids: [], classes: [], names: [] });
    expect(selectorKeysOf([], ['href'])).toEqual({ tags: [], ids: [], classes: [], names: [] });
  });

  it('adds the attribute names a rule reads, once each', () => {
    expect(selectorKeysOf(parseSelectorList('a[href*=x], link'), ['content', 'href']).names).toEqual([
      'href',
      'content',
    ]);
  });
});
