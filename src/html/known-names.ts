/**
 * Lowercased tag and attribute names as the reading records them, without a slice and a
 * toLowerCase per name for the common ones: a name spelled (in any ASCII case) like one of a fixed
 * table is given as the table's own string. Besides the two strings saved, every later look-up of
 * such a name (the reading's element rules, the walkers' rule tables, the selectors' indexes) gets
 * an interned string whose hash is known and whose comparisons are by identity.
 */

/** HTML, SVG and MathML element names pages commonly use, lowercased as the reading records them. */
// prettier-ignore
const TAG_NAMES = [
  'a', 'abbr', 'address', 'area', 'article', 'aside', 'audio', 'b', 'base', 'bdi', 'bdo', 'big',
  'blockquote', 'body', 'br', 'button', 'canvas', 'caption', 'center', 'circle', 'cite', 'clippath',
  'code', 'col', 'colgroup', 'data', 'datalist', 'dd', 'defs', 'del', 'details', 'dfn', 'dialog',
  'div', 'dl', 'dt', 'ellipse', 'em', 'embed', 'fieldset', 'figcaption', 'figure', 'font', 'footer',
  'form', 'frame', 'frameset', 'g', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup',
  'hr', 'html', 'i', 'iframe', 'image', 'img', 'input', 'ins', 'kbd', 'label', 'legend', 'li',
  'line', 'lineargradient', 'link', 'main', 'map', 'mark', 'mask', 'math', 'menu', 'meta', 'meter',
  'nav', 'noembed', 'noframes', 'noscript', 'object', 'ol', 'optgroup', 'option', 'output', 'p',
  'param', 'path', 'picture', 'plaintext', 'polygon', 'polyline', 'pre', 'progress', 'q',
  'radialgradient', 'rect', 'rp', 'rt', 'ruby', 's', 'samp', 'script', 'section', 'select', 'slot',
  'small', 'source', 'span', 'stop', 'strong', 'style', 'sub', 'summary', 'sup', 'svg', 'symbol',
  'table', 'tbody', 'td', 'template', 'text', 'textarea', 'tfoot', 'th', 'thead', 'time', 'title',
  'tr', 'track', 'tspan', 'tt', 'u', 'ul', 'use', 'var', 'video', 'wbr', 'xmp',
];

/** Attribute names pages commonly use, lowercased. */
// prettier-ignore
const ATTRIBUTE_NAMES = [
  'accept', 'accept-charset', 'action', 'align', 'allow', 'allowfullscreen', 'alt', 'aria-checked',
  'aria-controls', 'aria-current', 'aria-describedby', 'aria-expanded', 'aria-haspopup',
  'aria-hidden', 'aria-label', 'aria-labelledby', 'aria-live', 'as', 'async', 'autocomplete',
  'autoplay', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'charset', 'checked', 'class',
  'clip-rule', 'color', 'cols', 'colspan', 'content', 'contenteditable', 'controls', 'crossorigin',
  'cx', 'cy', 'd', 'data-id', 'data-name', 'data-src', 'data-srcset', 'data-target', 'data-toggle',
  'data-type', 'data-value', 'datetime', 'decoding', 'defer', 'dir', 'disabled', 'download',
  'draggable', 'enctype', 'fetchpriority', 'fill', 'fill-rule', 'focusable', 'for', 'frameborder',
  'height', 'hidden', 'href', 'hreflang', 'http-equiv', 'id', 'integrity', 'itemprop', 'itemscope',
  'itemtype', 'lang', 'loading', 'loop', 'max', 'maxlength', 'media', 'method', 'min', 'muted',
  'name', 'nonce', 'novalidate', 'onclick', 'onload', 'opacity', 'pattern', 'placeholder',
  'playsinline', 'points', 'poster', 'preload', 'property', 'r', 'readonly', 'referrerpolicy',
  'rel', 'required', 'role', 'rows', 'rowspan', 'rx', 'ry', 'sandbox', 'scope', 'scrolling',
  'selected', 'size', 'sizes', 'span', 'spellcheck', 'src', 'srcset', 'step', 'stroke',
  'stroke-linecap', 'stroke-linejoin', 'stroke-width', 'style', 'tabindex', 'target', 'title',
  'transform', 'translate', 'type', 'valign', 'value', 'version', 'viewbox', 'width', 'x', 'x1',
  'x2', 'xmlns', 'xmlns:xlink', 'xlink:href', 'y', 'y1', 'y2',
];

/**
 * Math.imul read once: under the test runner (code in a vm context) a `Math.imul` looked up in a hot
 * loop is not inlined and costs many times the loop's own work; read once, it costs nothing anywhere.
 */
const imul = Math.imul;
const SLOTS = 2048;
const MASK = SLOTS - 1;
const names: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);
const hashes = new Int32Array(SLOTS);

/**
 * One step of a name's hash, which ignores ASCII case (non-letters are altered alike): the reading
 * folds it into the loop that finds the name's end, so the name is not read twice.
 */
export function nameHashStep(hash: number, code: number): number {
  return (imul(hash, 31) + (code | 32)) | 0;
}

function hashOf(text: string, from: number, to: number): number {
  let hash = 0;
  for (let k = from; k < to; k++) hash = nameHashStep(hash, text.charCodeAt(k));
  return hash;
}

for (const name of new Set([...TAG_NAMES, ...ATTRIBUTE_NAMES])) {
  const hash = hashOf(name, 0, name.length);
  let slot = hash & MASK;
  while (names[slot] !== undefined) slot = (slot + 1) & MASK;
  names[slot] = name;
  hashes[slot] = hash;
}

/** True when html[from, to) lowercased (ASCII letters only) is `name`. */
function spells(name: string, html: string, from: number, to: number): boolean {
  if (name.length !== to - from) return false;
  for (let k = 0; k < name.length; k++) {
    let code = html.charCodeAt(from + k);
    if (code >= 65 && code <= 90) code += 32;
    if (code !== name.charCodeAt(k)) return false;
  }
  return true;
}

/** How many slots the table has: a slot number is below this. */
export const NAME_SLOTS = SLOTS;

/**
 * The table's slot of html[from, to) lowercased (ASCII letters only), -1 when it is no known name;
 * `hash` is the name's, when the caller has it (nameHashStep over its characters from 0). A slot is
 * a small number per known name, for tables indexed by name without a string look-up.
 */
export function nameSlot(html: string, from: number, to: number, hash = hashOf(html, from, to)): number {
  for (let slot = hash & MASK; names[slot] !== undefined; slot = (slot + 1) & MASK) {
    if (hashes[slot] === hash && spells(names[slot] as string, html, from, to)) return slot;
  }
  return -1;
}

/** The known name in a slot nameSlot gave. */
export function slotName(slot: number): string {
  return names[slot] as string;
}

/**
 * html.slice(from, to).toLowerCase(), as the table's string when the name is a known one; `hash` is
 * the name's, when the caller has it (nameHashStep over its characters from 0).
 */
export function lowerName(html: string, from: number, to: number, hash = hashOf(html, from, to)): string {
  const slot = nameSlot(html, from, to, hash);
  return slot >= 0 ? (names[slot] as string) : html.slice(from, to).toLowerCase();
}
