import { DomRule } from '../../../src/detection/dom-rule';
import { compilePattern } from '../../../src/detection/pattern';

describe('DomRule.readsNodes: whether a rule reads anything off its elements', () => {
  const pattern = compilePattern('x');
  const make = (attributes: string[], text: boolean): DomRule =>
    new DomRule(
      0,
      'div',
      undefined,
      null,
      pattern,
      attributes.map((name) => ({ name, pattern })),
      text ? pattern : null,
    );
  const page = new Set(['id', 'class']);
  const has = (name: string): boolean => page.has(name);

  it('a text rule reads its elements', () => {
    expect(make([], true).readsNodes(has)).toBe(true);
    expect(make(['q:version'], true).readsNodes(has)).toBe(true);
  });

  it('an attribute rule reads them when the page has one of its attributes', () => {
    expect(make(['q:version', 'class'], false).readsNodes(has)).toBe(true);
    expect(make(['q:version', 'data-x'], false).readsNodes(has)).toBe(false);
  });

  it('a rule with neither needs only to know whether there are elements', () => {
    expect(make([], false).readsNodes(has)).toBe(false);
  });

  it('lists the attribute names it reads among its index keys', () => {
    expect(make(['q:version', 'class'], false).indexKeys).toEqual({
      tags: ['div'],
      ids: [],
      classes: [],
      names: ['q:version', 'class'],
    });
  });
});
