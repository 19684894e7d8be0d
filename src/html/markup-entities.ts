import { Parser } from 'htmlparser2';

/**
 * Entities of the markup tokens decoded as htmlparser2 10.1.0 decodes them, so that readers of the
 * tokens (the fetcher's links, the enrichment's page document) get what its Parser gave them.
 *
 * The few values and texts that hold an uncommon entity are decoded by htmlparser2 itself: a tiny
 * Parser over the piece yields exactly its decoding (legacy entities without ";", attribute rules)
 * and, for text, its pieces (each decoded character is a text event of its own, which matters to
 * readers that cap a text as it grows).
 */
let pieces: string[] = [];
let attributeValue = '';
const DECODER_HANDLER = {
  ontext: (text: string) => pieces.push(text),
  onattribute: (_name: string, value: string) => (attributeValue = value),
};
const DECODER_OPTIONS = { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true };
/**
 * A fresh Parser per piece, fed a flat copy of it (the JSON round trip keeps every code unit, lone
 * surrogates included): reusing one Parser through reset(), or feeding it sliced and concatenated
 * strings, made the string accesses in htmlparser2's tokenizer polymorphic, and every other
 * tokenizer in the process then ran up to 2.4 times slower.
 */
function decode(markup: string): void {
  new Parser(DECODER_HANDLER, DECODER_OPTIONS).end(JSON.parse(JSON.stringify(markup)) as string);
}

/**
 * The common entities, terminated by ";" (the named ones below and numeric references to printable
 * characters), decode the same in text and attributes and without look-ahead: a piece holding only
 * these is decoded here, anything else by htmlparser2. The names are the web's most frequent (prices,
 * dashes, quotes, marks), each one character in HTML's table.
 */
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  euro: '\u20ac',
  pound: '\u00a3',
  yen: '\u00a5',
  cent: '\u00a2',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  times: '\u00d7',
  deg: '\u00b0',
  middot: '\u00b7',
  bull: '\u2022',
  hellip: '\u2026',
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  laquo: '\u00ab',
  raquo: '\u00bb',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
  sect: '\u00a7',
  para: '\u00b6',
};
/** The names decoded here (the tests hold each to htmlparser2's decoding). */
export const SIMPLE_ENTITY_NAMES: readonly string[] = Object.keys(NAMED);
const NAMED_CHARACTER = new Map(Object.entries(NAMED));
/** Where the entity simpleEntityAt last decoded ends (the index after its ";"). */
let entityEnd = 0;

/** The index after the last simple entity decoded. */
export function lastEntityEnd(): number {
  return entityEnd;
}

/**
 * The character of the simple entity that starts at text[at] (an "&") and ends before `to`, or null
 * when none does; lastEntityEnd() then says where it ends. Simple entities are
 *
 *   &(?:([a-z]{2,6})|#(\d{1,6})|#[xX]([0-9a-fA-F]{1,5}));
 *
 * whose name is in NAMED or whose code is printable, read here without a regex: a reader may decode
 * in place, in the html itself, with no match object, no copy of the text and no list of pieces.
 */
export function simpleEntityAt(text: string, at: number, to: number): string | null {
  let k = at + 1;
  if (k < to && text.charCodeAt(k) === 35) {
    k++;
    const hex = k < to && (text.charCodeAt(k) | 32) === 120;
    if (hex) k++;
    const digitsFrom = k;
    let code = 0;
    // One digit more than allowed is read, so that a longer number is refused as the regex refuses it.
    for (; k < to && k - digitsFrom <= (hex ? 5 : 6); k++) {
      const digit = digitValue(text.charCodeAt(k), hex);
      if (digit < 0) break;
      code = code * (hex ? 16 : 10) + digit;
    }
    const digits = k - digitsFrom;
    if (digits === 0 || digits > (hex ? 5 : 6) || k >= to || text.charCodeAt(k) !== 59) return null;
    entityEnd = k + 1;
    // Printable ASCII and Latin-1 up to the surrogates: no replacement rule applies (NUL, C1 controls,
    // surrogates and out-of-range codes are left to htmlparser2).
    return (code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code < 0xd800)
      ? String.fromCharCode(code)
      : null;
  }
  const nameFrom = k;
  while (k < to && k - nameFrom <= 6 && isLowercaseLetter(text.charCodeAt(k))) k++;
  const length = k - nameFrom;
  if (length < 2 || length > 6 || k >= to || text.charCodeAt(k) !== 59) return null;
  entityEnd = k + 1;
  return NAMED_CHARACTER.get(text.slice(nameFrom, k)) ?? null;
}

function isLowercaseLetter(code: number): boolean {
  return code >= 97 && code <= 122;
}

/** A decimal (or, with `hex`, hexadecimal) digit's value; -1 for other characters. */
function digitValue(code: number, hex: boolean): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (!hex) return -1;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * In an attribute value, "&" then letters and digits then "=" is never a character reference: the
 * tokenizer leaves a reference not ended by ";" alone when "=" or a letter or digit follows it, and a
 * name can only reach up to the "=". These are query strings (`?a=1&b=2`), the most common "&" in
 * attribute values written without `&amp;`.
 */
const QUERY_AMPERSAND = /&[a-zA-Z0-9]+=/y;

/**
 * Splits a piece on its entities when all are simple: [text, entity, text, entity, ..., text], else
 * null. In an attribute (`attribute`), a query string's "&" is kept as written.
 */
function simplePieces(raw: string, attribute: boolean): string[] | null {
  const out: string[] = [];
  let last = 0;
  for (let at = raw.indexOf('&'); at >= 0; at = raw.indexOf('&', at + 1)) {
    if (attribute) {
      QUERY_AMPERSAND.lastIndex = at;
      if (QUERY_AMPERSAND.test(raw)) continue;
    }
    const decoded = simpleEntityAt(raw, at, raw.length);
    if (decoded === null) return null; // an "&" that is not a simple entity
    out.push(raw.slice(last, at), decoded);
    last = entityEnd;
    at = last - 1;
  }
  if (out.length === 0 && !attribute) return null;
  out.push(raw.slice(last));
  return out;
}

export function decodeAttribute(raw: string): string {
  if (raw.indexOf('&') < 0) return raw;
  const simple = simplePieces(raw, true);
  if (simple) return simple.join('');
  const quote = raw.indexOf('"') < 0 ? '"' : raw.indexOf("'") < 0 ? "'" : '';
  attributeValue = raw;
  decode(`<a v=${quote}${raw}${quote}>`);
  return attributeValue;
}

/**
 * A text token holding an "&" (or, with `title`, a title's body: entities decoded, no markup) as
 * htmlparser2's text events: the text before an entity, then the entity's character, and so on.
 */
export function decodedTextPieces(raw: string, title: boolean): string[] {
  const simple = simplePieces(raw, false);
  if (simple) return simple.filter((piece) => piece !== '');
  pieces = [];
  decode(title ? `<title>${raw}</title>` : raw);
  return pieces;
}

/** The attributes of a START token as htmlparser2 gives them (values decoded). */
export function attributesOf(raw: readonly string[]): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (let k = 0; k < raw.length; k += 2) attributes[raw[k]] = decodeAttribute(raw[k + 1]);
  return attributes;
}

/**
 * One attribute of a START token, decoded, or undefined when absent: what `attributesOf(raw)[name]`
 * gives for a name Object.prototype does not hold, without building the object.
 */
export function attributeOf(raw: readonly string[], name: string): string | undefined {
  for (let k = 0; k < raw.length; k += 2) if (raw[k] === name) return decodeAttribute(raw[k + 1]);
  return undefined;
}
