/**
 * A light, linear-time HTML reader: one pass over the markup yields the facts the patterns need
 * (script URLs and bodies, inline styles, every meta tag, visible text) and a light element tree for
 * CSS selectors. It follows the HTML tokenizer where it matters for safety and accuracy: a tag left
 * open at the end of input is dropped (300 KB of `<a ` without `>` is one dropped tag, not 100,000),
 * raw-text elements (script, style, ...) end only at their own end tag (minified JavaScript full of
 * `<` is not markup), and the tree is capped at 512 levels as Chromium's parser does (deeper elements
 * become siblings), so 100,000 nested elements cannot make selector matching quadratic.
 */

export interface LightElement {
  readonly tag: string;
  /** Attribute names (lowercased) and values (entities decoded), alternating. First occurrence wins. */
  readonly attrs: string[];
  readonly parent: number;
  /** Previous element sibling, -1 when none. */
  readonly prev: number;
  /** Index of the element's last descendant (itself when it has none). */
  end: number;
  /** Range of `texts` inside the element: its text content is texts[textStart..textEnd). */
  readonly textStart: number;
  textEnd: number;
  lastChild: number;
}

export interface MetaTag {
  /** name or property attribute, lowercased. */
  name: string;
  content: string;
}

export interface LightDocument {
  readonly elements: LightElement[];
  readonly texts: string[];
  /** src attributes of script elements, as written. */
  readonly scriptSrc: string[];
  readonly inlineScripts: string[];
  readonly styles: string[];
  readonly metas: MetaTag[];
  readonly baseHref: string | null;
  /** Visible text, whitespace collapsed, at most TEXT_LIMIT characters. */
  readonly text: string;
  /** True when the element cap cut the reading short. */
  readonly truncated: boolean;
}

export const MAX_DEPTH = 512;
export const MAX_ELEMENTS = 200_000;
/** The reference drivers give text patterns the first 25,000 characters of the page text. */
export const TEXT_LIMIT = 25_000;
const MAX_INLINE_SCRIPTS = 200;

const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'keygen',
]);
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'noscript',
  'plaintext',
]);
const HIDDEN_TEXT = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'title',
  'iframe',
  'noembed',
  'noframes',
  'xmp',
]);
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);
/** Start tag → [elements it closes when open, elements that stop the search]. */
const IMPLIED_END: Record<string, [string[], string[]]> = {
  li: [['li'], ['ul', 'ol']],
  dt: [['dt', 'dd'], ['dl']],
  dd: [['dt', 'dd'], ['dl']],
  option: [['option'], ['select', 'datalist']],
  optgroup: [['option', 'optgroup'], ['select']],
  tr: [
    ['tr', 'td', 'th'],
    ['table', 'tbody', 'thead', 'tfoot'],
  ],
  td: [
    ['td', 'th'],
    ['tr', 'table'],
  ],
  th: [
    ['td', 'th'],
    ['tr', 'table'],
  ],
  tbody: [['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], ['table']],
  thead: [['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], ['table']],
  tfoot: [['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], ['table']],
  a: [['a'], ['table', 'td', 'th', 'button']],
};

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  middot: '·',
  bull: '•',
};
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));?/g;

export function decodeEntities(text: string): string {
  if (text.indexOf('&') < 0) return text;
  return text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
    const code = dec ? parseInt(dec, 10) : parseInt(hex as string, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : '\ufffd';
  });
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

const rawTextEnd = new Map<string, RegExp>();
function endTagPattern(tag: string): RegExp {
  let re = rawTextEnd.get(tag);
  if (!re) {
    re = new RegExp(`</${tag}[\\s/>]`, 'gi');
    rawTextEnd.set(tag, re);
  }
  return re;
}

export function parseHtml(html: string): LightDocument {
  const elements: LightElement[] = [];
  const texts: string[] = [];
  const scriptSrc: string[] = [];
  const inlineScripts: string[] = [];
  const styles: string[] = [];
  const metas: MetaTag[] = [];
  const visible: string[] = [];
  let visibleLength = 0;
  let baseHref: string | null = null;
  let truncated = false;

  const stack: number[] = [];
  const openCount = new Map<string, number>();
  let rootLast = -1;
  let hiddenDepth = 0;
  let foreignDepth = 0;

  const addText = (raw: string, decode: boolean): void => {
    if (!raw) return;
    const text = decode ? decodeEntities(raw) : raw;
    texts.push(text);
    if (hiddenDepth === 0 && visibleLength < TEXT_LIMIT * 2) {
      visible.push(text);
      visibleLength += text.length;
    }
  };

  const pop = (): void => {
    const index = stack.pop() as number;
    const element = elements[index];
    element.end = elements.length - 1;
    element.textEnd = texts.length;
    openCount.set(element.tag, (openCount.get(element.tag) ?? 1) - 1);
    if (HIDDEN_TEXT.has(element.tag)) hiddenDepth--;
    if (element.tag === 'svg' || element.tag === 'math') foreignDepth--;
  };

  const popUntil = (tag: string): void => {
    while (stack.length) {
      const top = elements[stack[stack.length - 1]].tag;
      pop();
      if (top === tag) return;
    }
  };

  /** Closes the nearest open element among `targets` unless a `boundary` element is nearer. */
  const closeOpen = (targets: string[], boundaries: string[]): void => {
    if (!targets.some((t) => (openCount.get(t) ?? 0) > 0)) return;
    for (let k = stack.length - 1; k >= 0; k--) {
      const tag = elements[stack[k]].tag;
      if (targets.includes(tag)) {
        while (stack.length > k) pop();
        return;
      }
      if (boundaries.includes(tag)) return;
    }
  };

  const open = (tag: string, attrs: string[], selfClosing: boolean): void => {
    if (elements.length >= MAX_ELEMENTS) {
      truncated = true;
      return;
    }
    if (foreignDepth === 0) {
      if ((openCount.get('p') ?? 0) > 0 && CLOSES_P.has(tag)) closeOpen(['p'], ['button', 'table']);
      const implied = IMPLIED_END[tag];
      if (implied) closeOpen(implied[0], implied[1]);
    }
    if (stack.length >= MAX_DEPTH) pop();
    const parent = stack.length ? stack[stack.length - 1] : -1;
    const index = elements.length;
    let prev: number;
    if (parent >= 0) {
      prev = elements[parent].lastChild;
      elements[parent].lastChild = index;
    } else {
      prev = rootLast;
      rootLast = index;
    }
    elements.push({
      tag,
      attrs,
      parent,
      prev,
      end: index,
      textStart: texts.length,
      textEnd: texts.length,
      lastChild: -1,
    });
    if (VOID.has(tag) || (selfClosing && (foreignDepth > 0 || tag === 'svg' || tag === 'math'))) return;
    stack.push(index);
    openCount.set(tag, (openCount.get(tag) ?? 0) + 1);
    if (HIDDEN_TEXT.has(tag)) hiddenDepth++;
    if (tag === 'svg' || tag === 'math') foreignDepth++;
  };

  const attr = (attrs: string[], name: string): string | null => {
    for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === name) return attrs[k + 1];
    return null;
  };

  const n = html.length;
  let i = 0;
  scan: while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      addText(html.slice(i), true);
      break;
    }
    if (lt > i) addText(html.slice(i, lt), true);
    const c = html.charCodeAt(lt + 1);

    if (c === 33 /* ! */ || c === 63 /* ? */) {
      if (html.startsWith('<!--', lt)) {
        const close = html.indexOf('-->', lt + 4);
        if (close < 0) break;
        i = close + 3;
      } else {
        const close = html.indexOf('>', lt + 2);
        if (close < 0) break;
        i = close + 1;
      }
      continue;
    }

    if (c === 47 /* / */) {
      if (!isLetter(html.charCodeAt(lt + 2))) {
        const close = html.indexOf('>', lt + 2);
        if (close < 0) break;
        i = close + 1;
        continue;
      }
      let j = lt + 2;
      while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62 && html.charCodeAt(j) !== 47)
        j++;
      const tag = html.slice(lt + 2, j).toLowerCase();
      const close = html.indexOf('>', j);
      if (close < 0) break;
      i = close + 1;
      if (tag === 'p' && (openCount.get('p') ?? 0) === 0) continue;
      if (tag !== 'body' && tag !== 'html' && (openCount.get(tag) ?? 0) > 0) popUntil(tag);
      continue;
    }

    if (!isLetter(c)) {
      addText('<', false);
      i = lt + 1;
      continue;
    }

    // Start tag: name, then attributes until ">"; end of input inside the tag drops it.
    let j = lt + 1;
    while (j < n) {
      const code = html.charCodeAt(j);
      if (isSpace(code) || code === 62 || code === 47) break;
      j++;
    }
    const tag = html.slice(lt + 1, j).toLowerCase();
    const attrs: string[] = [];
    let selfClosing = false;
    for (;;) {
      while (j < n && (isSpace(html.charCodeAt(j)) || html.charCodeAt(j) === 47)) {
        selfClosing = html.charCodeAt(j) === 47;
        j++;
      }
      if (j >= n) break scan;
      if (html.charCodeAt(j) === 62) {
        j++;
        break;
      }
      selfClosing = false;
      const nameStart = j;
      j++; // a name may start with "="
      while (j < n) {
        const code = html.charCodeAt(j);
        if (isSpace(code) || code === 47 || code === 62 || code === 61) break;
        j++;
      }
      const name = html.slice(nameStart, j).toLowerCase();
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      let value = '';
      if (html.charCodeAt(j) === 61 /* = */) {
        j++;
        while (j < n && isSpace(html.charCodeAt(j))) j++;
        const quote = html.charCodeAt(j);
        if (quote === 34 || quote === 39) {
          const close = html.indexOf(quote === 34 ? '"' : "'", j + 1);
          if (close < 0) break scan;
          value = html.slice(j + 1, close);
          j = close + 1;
        } else {
          const valueStart = j;
          while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
          value = html.slice(valueStart, j);
        }
      }
      if (attr(attrs, name) === null) attrs.push(name, decodeEntities(value));
    }
    i = j;

    open(tag, attrs, selfClosing);
    if (truncated) break;
    if (tag === 'meta') {
      const name = attr(attrs, 'name') || attr(attrs, 'property');
      if (name) metas.push({ name: name.toLowerCase(), content: attr(attrs, 'content') ?? '' });
    } else if (tag === 'base' && baseHref === null) {
      baseHref = attr(attrs, 'href');
    }
    if (RAW_TEXT.has(tag) && foreignDepth === 0) {
      const end = endTagPattern(tag);
      end.lastIndex = i;
      const found = tag === 'plaintext' ? null : end.exec(html);
      const bodyEnd = found ? found.index : n;
      const body = html.slice(i, bodyEnd);
      addText(body, tag === 'textarea' || tag === 'title');
      if (tag === 'script') {
        const src = attr(attrs, 'src');
        if (src !== null) scriptSrc.push(src.trim());
        else if (body && inlineScripts.length < MAX_INLINE_SCRIPTS) inlineScripts.push(body);
      } else if (tag === 'style') {
        styles.push(body);
      }
      if (!found) break;
      const close = html.indexOf('>', found.index + 2);
      if (close < 0) break;
      popUntil(tag);
      i = close + 1;
    }
  }
  while (stack.length) pop();

  const text = visible.join(' ').replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);
  return { elements, texts, scriptSrc, inlineScripts, styles, metas, baseHref, text, truncated };
}

export function getAttribute(element: LightElement, name: string): string | null {
  const attrs = element.attrs;
  for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === name) return attrs[k + 1];
  return null;
}

export function textContent(doc: LightDocument, element: LightElement): string {
  return doc.texts.slice(element.textStart, element.textEnd).join('');
}
