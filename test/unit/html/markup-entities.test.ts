import { Parser } from 'htmlparser2';

import { decodeAttribute, decodedTextPieces, SIMPLE_ENTITY_NAMES } from '../../../src/html/markup-entities';
import { seededRandom } from '../../helpers/seeded-random';

const OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };

/** htmlparser2's own text events over a piece of markup. */
function parserTextEvents(markup: string): string[] {
  const events: string[] = [];
  new Parser({ ontext: (text) => events.push(text) }, OPTIONS).end(markup);
  return events;
}

/** htmlparser2's own decoding of an attribute value. */
function parserAttribute(raw: string): string {
  let value = '';
  new Parser({ onattribute: (_name, decoded) => (value = decoded) }, OPTIONS).end(`<a v="${raw}">`);
  return value;
}

describe('markup entities decoded without htmlparser2', () => {
  const pieces = (name: string): string[] => [
    `&${name};`,
    `a &${name}; b`,
    `&${name};&${name};x`,
    `x&${name};&amp;&#8364;y`,
  ];

  it.each(SIMPLE_ENTITY_NAMES)('&%s; gives the text events htmlparser2 gives', (name) => {
    for (const text of pieces(name)) {
      expect(decodedTextPieces(text, false)).toEqual(parserTextEvents(text));
      expect(decodedTextPieces(text, true)).toEqual(parserTextEvents(`<title>${text}</title>`));
    }
  });

  it.each(SIMPLE_ENTITY_NAMES)('&%s; decodes in an attribute as htmlparser2 decodes it', (name) => {
    for (const value of pieces(name)) expect(decodeAttribute(value)).toBe(parserAttribute(value));
  });

  it('leaves other entities, and names without ";", to htmlparser2', () => {
    for (const text of [
      '&euro',
      '&copy x',
      '&copyright;',
      '&eurox;',
      '&notin;',
      '&Euro;',
      'a&b',
      '&foo; &amp;',
      '&amp;&frac12;',
    ]) {
      expect(decodedTextPieces(text, false)).toEqual(parserTextEvents(text));
      expect(decodeAttribute(text)).toBe(parserAttribute(text));
    }
  });

  it('keeps a query string\'s "&" in an attribute as htmlparser2 does', () => {
    for (const value of [
      'probe?target=a&module=http_2xx&debug=true',
      '/s?a=1&amp=2&copy=3&not=4&notin=5&AMP=6&1=7',
      '?x=1&y=2&amp;z=3',
      '?a=&b=',
      '&euro=1&euro;',
    ])
      expect(decodeAttribute(value)).toBe(parserAttribute(value));
  });

  it('decodes random values and texts as htmlparser2 does', () => {
    const random = seededRandom(0x2545f491);
    const next = (n: number): number => Math.floor(random() * n);
    const parts = [
      '&',
      'amp',
      'copy',
      'not',
      'notin',
      'euro',
      'AMP',
      'x',
      '1',
      '=',
      ';',
      '#',
      '#x',
      '38',
      'a0',
      ' ',
      '?',
      '/',
    ];
    for (let n = 0; n < 3000; n++) {
      let raw = '';
      for (let k = next(8) + 1; k > 0; k--) raw += parts[next(parts.length)];
      expect(decodeAttribute(raw)).toBe(parserAttribute(raw));
      expect(decodedTextPieces(raw, false).join('')).toBe(parserTextEvents(raw).join(''));
    }
  });
});
