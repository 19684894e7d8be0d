import { parseHtml } from '../../../src/html';
import { ORDINARY_TAG, tagRule } from '../../../src/html/tag-rules';

describe('tag rules', () => {
  it('gives each rule by name and ORDINARY_TAG to any other name', () => {
    expect(tagRule('br').isVoid).toBe(true);
    expect(tagRule('script')).toMatchObject({ rawText: true, hidden: true, rawForTokens: true });
    expect(tagRule('noscript')).toMatchObject({ rawText: true, rawForTreeOnly: true, rawForTokens: false });
    expect(tagRule('li').impliedEnd).toEqual([['li'], ['ul', 'ol']]);
    expect(tagRule('svg').foreign).toBe(true);
    expect(tagRule('my-element')).toBe(ORDINARY_TAG);
  });

  it('reads an element named like an Object.prototype member as an ordinary one', () => {
    // The implied-end table was a plain object: <constructor> found Object there and the reading threw.
    expect(tagRule('constructor')).toBe(ORDINARY_TAG);
    expect(parseHtml('<constructor><li>a</constructor>').elements.map((e) => e.tag)).toEqual([
      'constructor',
      'li',
    ]);
  });
});
