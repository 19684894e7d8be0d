import { complexMatches, parseSelectorList } from '../../../src/detection/css-selector';
import { parseHtml, getAttribute } from '../../../src/html';

/** Ids of the elements a selector matches, in document order (on the light tree, no jsdom). */
function select(html: string, selector: string): string[] {
  const doc = parseHtml(html);
  const complexes = parseSelectorList(selector);
  return doc.elements
    .map((_, index) => index)
    .filter((index) => complexes.some((complex) => complexMatches(doc, index, complex)))
    .map((index) => getAttribute(doc.elements[index], 'id') ?? doc.elements[index].tag);
}

const list =
  '<ul id="u"><li id="a">a</li><p id="p1">x</p><li id="b">b</li><li id="c">c</li><p id="p2">y</p><li id="d">d</li></ul>';

describe('selectors once left to jsdom, read on the light tree', () => {
  it(':nth-child and :nth-last-child with an+b', () => {
    expect(select(list, 'li:nth-child(1)')).toEqual(['a']);
    expect(select(list, 'ul > :nth-child(odd)')).toEqual(['a', 'b', 'p2']);
    expect(select(list, 'ul > :nth-child(2n)')).toEqual(['p1', 'c', 'd']);
    expect(select(list, 'ul > :nth-child(-n+2)')).toEqual(['a', 'p1']);
    expect(select(list, 'ul > :nth-last-child(1)')).toEqual(['d']);
  });

  it('the -of-type family', () => {
    expect(select(list, 'li:nth-of-type(2)')).toEqual(['b']);
    expect(select(list, 'p:first-of-type')).toEqual(['p1']);
    expect(select(list, 'p:last-of-type')).toEqual(['p2']);
    expect(select(list, 'li:nth-last-of-type(2)')).toEqual(['c']);
    expect(
      select('<div id="x"><span id="s">s</span><i id="i">i</i><i id="j">j</i></div>', 'div > :only-of-type'),
    ).toEqual(['s']);
  });

  it(':is(), :where() and :matches() take a list', () => {
    expect(select(list, ':is(#a, #c)')).toEqual(['a', 'c']);
    expect(select(list, 'ul :where(p)')).toEqual(['p1', 'p2']);
    expect(select(list, 'li:matches(#b)')).toEqual(['b']);
  });

  it('a string left open at the end of the selector is closed there, as CSS reads it', () => {
    const html = '<link id="l" href="/wp-content/plugins/x/blocks.css?ver=1">';
    expect(select(html, "link[href*='/wp-content/plugins/x/blocks.css")).toEqual(['l']);
  });

  it('what the engine cannot read throws (the rule is reported at load and never matches)', () => {
    expect(() => parseSelectorList('div:has(> p)')).toThrow(/unsupported pseudo-class/);
    expect(() => parseSelectorList('li:nth-child(foo)')).toThrow(/an\+b/);
  });
});
