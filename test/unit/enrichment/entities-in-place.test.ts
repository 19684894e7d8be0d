import { Parser } from 'htmlparser2';

import { parsePageDocument } from '../../../src/enrichment/page-document';
import { lastEntityEnd, simpleEntityAt } from '../../../src/html/markup-entities';
import { seededRandom } from '../../helpers/seeded-random';

/** htmlparser2's decoding of a text, its events joined. */
function parserText(markup: string): string {
  let text = '';
  new Parser({ ontext: (piece) => (text += piece) }, { decodeEntities: true }).end(markup);
  return text;
}

const FRAGMENTS = [
  '&',
  'amp',
  'copy',
  'nbsp',
  'notin',
  'AMP',
  ';',
  '#',
  '#x',
  '38',
  '8364',
  'a0',
  'D800',
  'x',
  ' ',
  'é',
];

function randomTexts(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const next = (n: number): number => Math.floor(random() * n);
  return Array.from({ length: count }, () => {
    let text = '';
    for (let k = next(9) + 1; k > 0; k--) text += FRAGMENTS[next(FRAGMENTS.length)];
    return text;
  });
}

describe('simple entities read in place', () => {
  it('reads an entity only within the range it is given', () => {
    expect(simpleEntityAt('&amp;', 0, 5)).toBe('&');
    expect(lastEntityEnd()).toBe(5);
    expect(simpleEntityAt('&amp;', 0, 4)).toBeNull();
    expect(simpleEntityAt('x&#8364;y', 1, 8)).toBe('€');
    expect(lastEntityEnd()).toBe(8);
    expect(simpleEntityAt('&#x20AC;', 0, 7)).toBeNull();
    expect(simpleEntityAt('&#1234567;', 0, 10)).toBeNull();
    expect(simpleEntityAt('&#x123456;', 0, 10)).toBeNull();
    expect(simpleEntityAt('&abcdefg;', 0, 9)).toBeNull();
    expect(simpleEntityAt('&#0;', 0, 4)).toBeNull();
  });

  it('gives the page document the texts htmlparser2 decodes, an entity cut by a tag included', () => {
    for (const text of randomTexts(17, 1500)) {
      const doc = parsePageDocument(
        'https://example.com/team',
        `<title>${text}</title><h1>${text}</h1><a href="/x">${text}</a><p>${text}<b>${text}</b>;</p>`,
      );
      const decoded = parserText(text);
      expect({ text, title: doc.title }).toEqual({ text, title: parserText(`<title>${text}</title>`) });
      expect({ text, heading: doc.headings[0] }).toEqual({ text, heading: decoded });
      expect({ text, anchor: doc.anchors[0]?.text }).toEqual({ text, anchor: decoded });
      // The blocks' newlines where h1 and p open and close, then the page text's collapse.
      const page = `\n${decoded}\n${decoded}\n${decoded}${decoded};\n`
        .replace(/[ \t\r\f\v]+/g, ' ')
        .replace(/\n(?:[ \t]*\n)+/g, '\n');
      expect({ text, page: doc.text }).toEqual({ text, page });
    }
  });
});
