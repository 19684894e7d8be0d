import { Parser } from 'htmlparser2';

import { decodeAttribute, decodedTextPieces, SIMPLE_ENTITY_NAMES } from '../../../src/html/markup-entities';

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
});
