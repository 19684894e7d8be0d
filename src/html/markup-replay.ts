import { Parser } from 'htmlparser2';

import { TOKEN, type MarkupTokens } from './light-document';

/** What a reader of the markup hears: htmlparser2's Handler events, as its Parser would emit them. */
export interface MarkupHandler {
  /**
   * Whether onopentag reads the attributes of this start tag (raw: names and values as written,
   * alternating); when it says no, onopentag gets an empty object and no value is decoded.
   */
  needsAttributes?(name: string, raw: readonly string[]): boolean;
  onopentag?(name: string, attributes: Record<string, string>): void;
  ontext?(text: string): void;
  onclosetag?(name: string): void;
}

// htmlparser2 10.1.0's Parser rules (Parser.js), so that replaying the tokens gives its events.
const formTags = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const pTag = new Set(['p']);
const tableSectionTags = new Set(['thead', 'tbody']);
const ddtTags = new Set(['dd', 'dt']);
const rtpTags = new Set(['rt', 'rp']);
const openImpliesClose = new Map<string, Set<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['p', pTag],
  ['h1', pTag],
  ['h2', pTag],
  ['h3', pTag],
  ['h4', pTag],
  ['h5', pTag],
  ['h6', pTag],
  ['select', formTags],
  ['input', formTags],
  ['output', formTags],
  ['button', formTags],
  ['datalist', formTags],
  ['textarea', formTags],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', ddtTags],
  ['dt', ddtTags],
  ['address', pTag],
  ['article', pTag],
  ['aside', pTag],
  ['blockquote', pTag],
  ['details', pTag],
  ['div', pTag],
  ['dl', pTag],
  ['fieldset', pTag],
  ['figcaption', pTag],
  ['figure', pTag],
  ['footer', pTag],
  ['form', pTag],
  ['header', pTag],
  ['hr', pTag],
  ['main', pTag],
  ['nav', pTag],
  ['ol', pTag],
  ['pre', pTag],
  ['section', pTag],
  ['table', pTag],
  ['ul', pTag],
  ['rt', rtpTags],
  ['rp', rtpTags],
  ['tbody', tableSectionTags],
  ['tfoot', tableSectionTags],
]);
const voidElements = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const foreignContextElements = new Set(['math', 'svg']);
const htmlIntegrationElements = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

/**
 * Entities are decoded by htmlparser2 itself, on the few values and texts that hold an "&": a tiny
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
 * The common entities, terminated by ";" (&amp; &lt; &gt; &quot; &apos; &nbsp; and numeric
 * references to printable characters), decode the same in text and attributes and without
 * look-ahead: a piece holding only these is decoded here, anything else by htmlparser2.
 */
const SIMPLE_ENTITY = /&(?:(amp|lt|gt|quot|apos|nbsp)|#(\d{1,6})|#[xX]([0-9a-fA-F]{1,5}));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function simpleEntity(
  name: string | undefined,
  dec: string | undefined,
  hex: string | undefined,
): string | null {
  if (name !== undefined) return NAMED[name];
  const code = dec !== undefined ? parseInt(dec, 10) : parseInt(hex as string, 16);
  // Printable ASCII and Latin-1 up to the surrogates: no replacement rule applies (NUL, C1 controls,
  // surrogates and out-of-range codes are left to htmlparser2).
  if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code < 0xd800)) return String.fromCharCode(code);
  return null;
}

/** Splits a piece on its entities when all are simple: [text, entity, text, entity, ..., text], else null. */
function simplePieces(raw: string): string[] | null {
  const out: string[] = [];
  let last = 0;
  SIMPLE_ENTITY.lastIndex = 0;
  for (let m = SIMPLE_ENTITY.exec(raw); m !== null; m = SIMPLE_ENTITY.exec(raw)) {
    if (raw.indexOf('&', last) < m.index) return null; // an "&" that is not a simple entity
    const decoded = simpleEntity(m[1], m[2], m[3]);
    if (decoded === null) return null;
    out.push(raw.slice(last, m.index), decoded);
    last = m.index + m[0].length;
  }
  if (out.length === 0 || raw.indexOf('&', last) >= 0) return null;
  out.push(raw.slice(last));
  return out;
}

export function decodeAttribute(raw: string): string {
  if (raw.indexOf('&') < 0) return raw;
  const simple = simplePieces(raw);
  if (simple) return simple.join('');
  const quote = raw.indexOf('"') < 0 ? '"' : raw.indexOf("'") < 0 ? "'" : '';
  attributeValue = raw;
  decode(`<a v=${quote}${raw}${quote}>`);
  return attributeValue;
}

/** Text (or, with `title`, a title's body: entities decoded, no markup) as htmlparser2's pieces. */
function emitText(raw: string, title: boolean, ontext: (text: string) => void): void {
  if (raw.indexOf('&') < 0) {
    ontext(raw);
    return;
  }
  const simple = simplePieces(raw);
  if (simple) {
    // htmlparser2 emits the text before an entity, then the entity's character, as pieces.
    for (const piece of simple) if (piece) ontext(piece);
    return;
  }
  pieces = [];
  decode(title ? `<title>${raw}</title>` : raw);
  for (const piece of pieces) ontext(piece);
}

/** The attributes of a START token as htmlparser2 gives them (values decoded). */
export function attributesOf(raw: readonly string[]): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (let k = 0; k < raw.length; k += 2) attributes[raw[k]] = decodeAttribute(raw[k + 1]);
  return attributes;
}

/**
 * Replays the tokens of one reading as htmlparser2's Parser (HTML mode, entities decoded, names
 * lowercased) would have emitted them over the same markup: implied ends, void elements,
 * self-closing tags in svg/math only, `</p>` and `</br>` without a start, and every element still
 * open at the end closed.
 */
export function replayMarkup(html: string, tokens: MarkupTokens, handler: MarkupHandler): void {
  // htmlparser2 keeps its stack top first (shift and unshift); here the top is last (pop and push,
  // no move of the whole stack per element), read in the same order.
  const stack: string[] = [];
  const foreignContext: boolean[] = [false];
  const { kinds, names, attrs, from, to } = tokens;
  const ontext = handler.ontext ? handler.ontext.bind(handler) : null;
  const close = (name: string): void => handler.onclosetag?.(name);
  const top = (): string | undefined => stack[stack.length - 1];

  const emitOpenTag = (name: string): void => {
    const impliesClose = openImpliesClose.get(name);
    if (impliesClose) {
      while (stack.length > 0 && impliesClose.has(stack[stack.length - 1])) close(stack.pop() as string);
    }
    if (!voidElements.has(name)) {
      stack.push(name);
      if (foreignContextElements.has(name)) foreignContext.push(true);
      else if (htmlIntegrationElements.has(name)) foreignContext.push(false);
    }
  };

  for (let k = 0; k < kinds.length; k++) {
    const kind = kinds[k];
    if (kind === TOKEN.START) {
      const name = names[k];
      emitOpenTag(name);
      if (handler.onopentag) {
        const raw = attrs[k] as string[];
        const needed = raw.length > 0 && (!handler.needsAttributes || handler.needsAttributes(name, raw));
        handler.onopentag(name, needed ? attributesOf(raw) : {});
      }
      if (voidElements.has(name)) close(name);
      else if (from[k] === 1 && foreignContext[foreignContext.length - 1] && top() === name) {
        close(name);
        stack.pop();
      }
    } else if (kind === TOKEN.END) {
      const name = names[k];
      if (foreignContextElements.has(name) || htmlIntegrationElements.has(name)) foreignContext.pop();
      if (!voidElements.has(name)) {
        const at = stack.lastIndexOf(name);
        if (at !== -1) {
          while (stack.length > at) close(stack.pop() as string);
        } else if (name === 'p') {
          emitOpenTag('p');
          handler.onopentag?.('p', {});
          if (top() === 'p') {
            close('p');
            stack.pop();
          }
        }
      } else if (name === 'br') {
        handler.onopentag?.('br', {});
        close('br');
      }
    } else if (ontext) {
      const raw = html.slice(from[k], to[k]);
      if (kind === TOKEN.RAW) ontext(raw);
      else emitText(raw, kind === TOKEN.RCDATA, ontext);
    }
  }
  for (let index = stack.length - 1; index >= 0; index--) close(stack[index]);
}
