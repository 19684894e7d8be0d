import { parseHtml } from '../../../src/html';
import { nameSlot } from '../../../src/html/known-names';
import { ORDINARY_TAG, tagRule, tagRuleAt } from '../../../src/html/tag-rules';

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

describe('tag rules by known-name slot', () => {
  it('gives what tagRule gives, for known names and others', () => {
    // prettier-ignore
    const names = [
      'br', 'script', 'noscript', 'li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'tbody',
      'thead', 'tfoot', 'a', 'p', 'div', 'svg', 'math', 'span', 'keygen', 'my-element', 'constructor',
    ];
    for (const name of names) expect(tagRuleAt(nameSlot(name, 0, name.length), name)).toBe(tagRule(name));
  });

  it('keeps the slots of the elements a start tag closes, in step with their names', () => {
    for (const name of ['li', 'dt', 'dd', 'option', 'optgroup', 'tr', 'td', 'th', 'tbody', 'a']) {
      const rule = tagRule(name);
      expect(rule.impliedEndSlots).toEqual(
        rule.impliedEnd?.[0].map((target) => nameSlot(target, 0, target.length)),
      );
      expect(rule.impliedEndSlots?.every((slot) => slot >= 0)).toBe(true);
    }
    expect(ORDINARY_TAG.impliedEndSlots).toBeUndefined();
  });
});
