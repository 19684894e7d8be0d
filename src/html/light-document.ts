/**
 * The one reading of a page's HTML (issue 35: one parse per page, shared by the fetcher, the
 * detection and the enrichment). A light, linear-time reader: one pass over the markup yields the
 * facts the patterns need (script URLs and bodies, inline styles, every meta tag, visible text), a
 * light element tree for CSS selectors, and the markup tokens the htmlparser2-based readers walk
 * (markup-walk.ts). It follows the HTML tokenizer where it matters for safety and accuracy: a tag
 * left open at the end of input is dropped (300 KB of `<a ` without `>` is one dropped tag, not
 * 100,000), raw-text elements (script, style, ...) end only at their own end tag (minified
 * JavaScript full of `<` is not markup), and the tree is capped at 512 levels as Chromium's parser
 * does (deeper elements become siblings), so 100,000 nested elements cannot make selector matching
 * quadratic. Where htmlparser2 reads markup otherwise (a noscript body as markup, a CDATA section,
 * "</ p>"), the tokens follow htmlparser2 and the tree follows the browser, so that every reader
 * gets what it got from its own parser before.
 */

import { NAME_SLOTS, nameHashStep, nameSlot, slotName } from './known-names';
import { decodeEntities } from './light-entities';
import { tagRuleAt, type TagRule } from './tag-rules';

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
const P = ['p'];
const P_SLOT = [nameSlot('p', 0, 1)];
const P_BOUNDARIES = ['button', 'table'];
export const MAX_ELEMENTS = 200_000;
/** The reference drivers give text patterns the first 25,000 characters of the page text. */
export const TEXT_LIMIT = 25_000;
const MAX_INLINE_SCRIPTS = 200;
/**
 * The whitespace runs that /\s+/ → " " changes: two or more characters, or one that is not a space.
 * Same text, but the single spaces between words (most runs) are left alone instead of each being
 * replaced by itself.
 */
export const WHITESPACE_TO_COLLAPSE = /\s\s+|[^\S ]/g;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

/** True when html[from, to) is ASCII whitespace only (every such character is one /\s/ matches). */
function isBlank(html: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const code = html.charCodeAt(k);
    if (!isSpace(code) && code !== 11) return false;
  }
  return true;
}

function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

/** The nameHashStep hash of the tag name tagNameEnd read last. */
let tagNameHash = 0;

/** Where the tag name at `from` ends (a space, "/" or ">"); leaves its hash in tagNameHash. */
function tagNameEnd(html: string, from: number, n: number): number {
  let j = from;
  let hash = 0;
  while (j < n) {
    const code = html.charCodeAt(j);
    if (isSpace(code) || code === 62 || code === 47) break;
    hash = nameHashStep(hash, code);
    j++;
  }
  tagNameHash = hash;
  return j;
}

/**
 * How many elements of each known tag name (by its known-names slot) are open in the tree being
 * read: an array read instead of a map for the names of the table. Zeroed at each reading's start.
 */
const OPEN_KNOWN = new Int32Array(NAME_SLOTS);

function hasAttribute(attributes: string[], count: number, name: string): boolean {
  for (let k = 0; k < count; k += 2) if (attributes[k] === name) return true;
  return false;
}

/**
 * The attributes of every start tag that has none: one array for all of them rather than one
 * allocated per tag (no reader changes a tag's attributes; the tree decodes values into a copy).
 */
const NO_ATTRIBUTES: string[] = [];

function takeAttributes(attributes: string[], count: number): string[] {
  return count === 0 ? NO_ATTRIBUTES : attributes.slice(0, count);
}

/** What a regex's \s matches (Unicode spaces and line terminators), for one character. */
const PATTERN_SPACE = /\s/;

/**
 * Where the end tag of the raw-text element `tag` (lowercase letters) starts at or after `from`, -1
 * when there is none: "</", the name in any ASCII case, then a character /\s/ matches or ">", or
 * also "/" when `slashEnds` (what /<\/tag[\s\/>]/gi finds, without a regex search through the body
 * and a match object per element). The tree ends the element at "</script/" as a browser does;
 * htmlparser2 does not.
 */
export function rawTextEndAt(html: string, tag: string, from: number, slashEnds: boolean): number {
  const length = tag.length;
  for (let at = html.indexOf('</', from); at >= 0; at = html.indexOf('</', at + 2)) {
    let k = 0;
    // | 32 lowers an ASCII capital and leaves a lowercase letter as it is; no other character
    // turns into a lowercase letter by it except the capitals themselves.
    while (k < length && (html.charCodeAt(at + 2 + k) | 32) === tag.charCodeAt(k)) k++;
    if (k < length) continue;
    const next = html.charCodeAt(at + 2 + length);
    if (next === 62 || (next === 47 && slashEnds) || PATTERN_SPACE.test(html.charAt(at + 2 + length)))
      return at;
  }
  return -1;
}

/**
 * The page's markup as tokens, in document order, for the readers that want htmlparser2's view of it
 * (the fetcher's links and resources, the enrichment's page document; see markup-walk.ts): kept
 * beside the light tree so that those readers need no second tokenizer pass.
 *
 * Kinds: START (name, raw attributes, self-closing), END (name), and text ranges of `html`: TEXT
 * (markup text: entities to decode), RAW (script, style, textarea, xmp bodies, as written) and RCDATA
 * (title bodies: entities decoded, no markup, as htmlparser2 10 reads them).
 */
export interface MarkupTokens {
  /**
   * Each token's kind (TOKEN) in its low TOKEN_KIND_BITS; above them, for a START token, its
   * TOKEN_FLAG bits; above those, for a START or END token, the known-names slot of its name plus
   * one, or 0 when the reading did not take it from the table (the name may still be a known one:
   * `tokenSlot` -1 says "look the name up", never "unknown name").
   * The readers index their tables by slot instead of looking each name up.
   */
  readonly kinds: Int32Array;
  /** Tag name (lowercased) of START and END tokens; '' for text. */
  readonly names: string[];
  /** START: attribute names (lowercased) and raw values, alternating, first occurrence wins. */
  readonly attrs: (string[] | null)[];
  /** Text tokens: [from, to) in html; START: 1 when self-closing. */
  readonly from: Int32Array;
  readonly to: Int32Array;
}

export const TOKEN = { START: 0, END: 1, TEXT: 2, RAW: 3, RCDATA: 4 } as const;
const TOKEN_KIND_BITS = 3;
const TOKEN_KIND_MASK = (1 << TOKEN_KIND_BITS) - 1;
/**
 * What a START token's attributes hold, as bits of its `kinds` entry: set in the reading's own
 * attribute loop, they spare the readers a look through the attributes of every tag (and the cache
 * misses of loading them) for the few tags that have these.
 */
export const TOKEN_FLAG = {
  /** An itemprop or itemscope attribute (the page document's microdata). */
  MICRODATA: 1 << TOKEN_KIND_BITS,
  /** A srcset attribute (the fetcher's resources). */
  SRCSET: 2 << TOKEN_KIND_BITS,
} as const;
const TOKEN_SLOT_SHIFT = TOKEN_KIND_BITS + 2;
/**
 * TOKEN_FLAG bits by the attribute name's known-names slot (one array read per attribute; comparing
 * each name with the three took more instructions). The flagged names are known ones, so an
 * attribute without a slot is none of them (toLowerCase turns no other character into their letters).
 */
const ATTRIBUTE_FLAGS = new Int32Array(NAME_SLOTS);
for (const [name, flag] of [
  ['itemprop', TOKEN_FLAG.MICRODATA],
  ['itemscope', TOKEN_FLAG.MICRODATA],
  ['srcset', TOKEN_FLAG.SRCSET],
] as const)
  ATTRIBUTE_FLAGS[nameSlot(name, 0, name.length)] = flag;

/** The kind (TOKEN) of a `kinds` entry. */
export function tokenKind(entry: number): number {
  return entry & TOKEN_KIND_MASK;
}

/** The known-names slot of a `kinds` entry's name, -1 when it has none recorded. */
export function tokenSlot(entry: number): number {
  return (entry >> TOKEN_SLOT_SHIFT) - 1;
}

/** The most tokens the token arrays are sized for beforehand. */
const MAX_EXPECTED_TOKENS = 1 << 16;

export interface ParseOptions {
  /** Also record the markup tokens (default true); detection of a rendered DOM needs the tree only. */
  tokens?: boolean;
}

/** One reading of a page: the light tree and, unless asked not to, the markup tokens. */
export function readMarkup(
  html: string,
  options: ParseOptions = {},
): { light: LightDocument; tokens: MarkupTokens | null } {
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

  const tokens = options.tokens !== false;
  /**
   * The attributes of the start tag being read, names and values alternating: gathered here and
   * copied once into an array of their own size (an array grown by push from empty reserves room
   * for 17 entries, and the tree and the tokens keep it). An array of this reading's own, not one
   * kept from page to page: storing the page's new strings into an old array costs a write barrier
   * entry each.
   */
  const attributes: string[] = [];
  let tokenCount = 0;
  // The token arrays, sized for a page's usual count of tokens (one per 32 characters or so) and
  // cut to the count at the end: an array pushed into from empty grows by copies again and again.
  // Kinds and offsets are typed arrays: half the bytes of a number array's elements, and nothing
  // in them for the garbage collector to trace. The three are blocks of one typed array, the kinds
  // at [0, capacity), the froms and tos after them: one buffer to allocate (each is a backing store
  // of its own outside the heap, dearer than an array in it) and one array for the reading to check.
  let tokenCapacity = tokens ? Math.min(html.length >> 5, MAX_EXPECTED_TOKENS) + 16 : 0;
  let tokenData = new Int32Array(tokenCapacity * 3);
  const tokenNames = new Array<string>(tokenCapacity);
  const tokenAttrs = new Array<string[] | null>(tokenCapacity);
  const growTokens = (): void => {
    const capacity = tokenCapacity * 2 + 16;
    const larger = new Int32Array(capacity * 3);
    for (let block = 0; block < 3; block++)
      larger.set(tokenData.subarray(block * tokenCapacity, (block + 1) * tokenCapacity), block * capacity);
    tokenData = larger;
    tokenCapacity = capacity;
  };
  /** Tokens end before this offset are inside what htmlparser2 reads as a CDATA section. */
  let skipTokensUntil = 0;
  /**
   * `kind`: a TOKEN, with its TOKEN_FLAG bits for a START token; `slot`: the known-names slot of a
   * START or END token's name when the reading has it, else -1.
   */
  const token = (
    kind: number,
    name: string,
    slot: number,
    attrs: string[] | null,
    from: number,
    to: number,
  ): void => {
    if (!tokens) return;
    if (to <= skipTokensUntil) return;
    if ((kind & TOKEN_KIND_MASK) >= TOKEN.TEXT && from < skipTokensUntil) from = skipTokensUntil;
    const k = tokenCount++;
    if (k === tokenCapacity) growTokens();
    tokenData[k] = kind | ((slot + 1) << TOKEN_SLOT_SHIFT);
    tokenNames[k] = name;
    tokenAttrs[k] = attrs;
    tokenData[tokenCapacity + k] = from;
    tokenData[2 * tokenCapacity + k] = to;
  };

  const stack: number[] = [];
  /** The rules and the known-name slots (-1: none) of the elements on the stack, in step with it. */
  const stackRules: TagRule[] = [];
  const stackSlots: number[] = [];
  OPEN_KNOWN.fill(0);
  /** How many elements of each other tag name are open. */
  const openOther = new Map<string, number>();
  const openCount = (slot: number, tag: string): number =>
    slot >= 0 ? OPEN_KNOWN[slot] : (openOther.get(tag) ?? 0);
  let rootLast = -1;
  let hiddenDepth = 0;
  let foreignDepth = 0;

  /**
   * Where the first "&" at or after `from` is (html.length when none): remembered from the last
   * question, so that finding which texts and values hold an entity reads the page once, not each
   * slice again.
   */
  let ampAsked = 0;
  let ampAt = -1;
  const ampFrom = (from: number): number => {
    if (from < ampAsked || ampAt < from) {
      ampAt = html.indexOf('&', from);
      if (ampAt < 0) ampAt = html.length;
    }
    ampAsked = from;
    return ampAt;
  };

  /**
   * A piece of text, `length` characters; `decode` when it holds an "&" (its entities are decoded);
   * `from`: where it starts in html, -1 when it is no slice of it.
   * The caller gives the length it knows: the pieces are strings of many representations, and
   * reading their length would be a generic look-up.
   */
  const addText = (raw: string, length: number, decode: boolean, from: number): void => {
    if (length === 0 || truncated) return;
    const text = decode ? decodeEntities(raw) : raw;
    texts.push(text);
    if (hiddenDepth === 0 && visibleLength < TEXT_LIMIT * 2) {
      // A piece of whitespace alone changes nothing in the visible text (whitespace runs collapse to
      // one space, and the join puts one there anyway): counted, but not joined and collapsed again.
      if (decode || from < 0 || !isBlank(html, from, from + length)) visible.push(text);
      visibleLength += decode ? text.length : length;
    }
  };

  const pop = (): void => {
    const index = stack.pop() as number;
    const rule = stackRules.pop() as TagRule;
    const slot = stackSlots.pop() as number;
    const element = elements[index];
    element.end = elements.length - 1;
    element.textEnd = texts.length;
    if (slot >= 0) OPEN_KNOWN[slot]--;
    else openOther.set(element.tag, (openOther.get(element.tag) ?? 1) - 1);
    if (rule.hidden) hiddenDepth--;
    if (rule.foreign) foreignDepth--;
  };

  const popUntil = (tag: string): void => {
    while (stack.length) {
      const top = elements[stack[stack.length - 1]].tag;
      pop();
      if (top === tag) return;
    }
  };

  /**
   * Closes the nearest open element among `targets` (known names, whose slots are `targetSlots`)
   * unless a `boundary` element is nearer.
   */
  const closeOpen = (
    targets: readonly string[],
    targetSlots: readonly number[],
    boundaries: readonly string[],
  ): void => {
    let anyOpen = false;
    for (let k = 0; k < targetSlots.length && !anyOpen; k++) anyOpen = OPEN_KNOWN[targetSlots[k]] > 0;
    if (!anyOpen) return;
    for (let k = stack.length - 1; k >= 0; k--) {
      const tag = elements[stack[k]].tag;
      if (targets.includes(tag)) {
        while (stack.length > k) pop();
        return;
      }
      if (boundaries.includes(tag)) return;
    }
  };

  const open = (tag: string, slot: number, rule: TagRule, attrs: string[], selfClosing: boolean): void => {
    if (elements.length >= MAX_ELEMENTS) {
      truncated = true;
      return;
    }
    if (foreignDepth === 0) {
      if (rule.closesP && OPEN_KNOWN[P_SLOT[0]] > 0) closeOpen(P, P_SLOT, P_BOUNDARIES);
      const implied = rule.impliedEnd;
      if (implied) closeOpen(implied[0], rule.impliedEndSlots as readonly number[], implied[1]);
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
    if (rule.isVoid || (selfClosing && (foreignDepth > 0 || rule.foreign))) return;
    stack.push(index);
    stackRules.push(rule);
    stackSlots.push(slot);
    if (slot >= 0) OPEN_KNOWN[slot]++;
    else openOther.set(tag, (openOther.get(tag) ?? 0) + 1);
    if (rule.hidden) hiddenDepth++;
    if (rule.foreign) foreignDepth++;
  };

  /** An end tag's name as htmlparser2 reads it: from `at` to a space or ">", lowercased. */
  const endTagName = (at: number, close: number): string => {
    let k = at;
    while (k < close && !isSpace(html.charCodeAt(k))) k++;
    return html.slice(at, k).toLowerCase();
  };

  const attr = (attrs: string[], name: string): string | null => {
    for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === name) return attrs[k + 1];
    return null;
  };

  /** The start tag readStartTag read last: its name, slot, attributes and how it ends. */
  let startTag = '';
  let startSlot = -1;
  let startAttrs: string[] = [];
  let startSelfClosing = false;
  let startHasEntity = false;
  /**
   * Reads the start tag at `lt` (a "<" before a letter) to its ">", records its START token and
   * leaves the tag in the start* variables; returns where the reading goes on, or -1 when the input
   * ends inside the tag (it is dropped). A function of its own rather than part of `scan`: V8 gives
   * each optimized function a budget of inlined code, and the attribute loop's helpers (name slots,
   * the "&" search, the token) used up scan's, leaving its other hot calls uninlined.
   */
  const readStartTag = (lt: number, n: number): number => {
    let j = tagNameEnd(html, lt + 1, n);
    const slot = nameSlot(html, lt + 1, j, tagNameHash);
    const tag = slot >= 0 ? slotName(slot) : html.slice(lt + 1, j).toLowerCase();
    let attrCount = 0;
    let selfClosing = false;
    // htmlparser2's "self-closing": a "/" followed by spaces only, up to the ">".
    let slashed = false;
    let hasEntity = false;
    let tokenFlags = 0;
    for (;;) {
      while (j < n && (isSpace(html.charCodeAt(j)) || html.charCodeAt(j) === 47)) {
        selfClosing = html.charCodeAt(j) === 47;
        if (selfClosing) slashed = true;
        j++;
      }
      if (j >= n) return -1;
      if (html.charCodeAt(j) === 62) {
        j++;
        break;
      }
      selfClosing = false;
      slashed = false;
      const nameStart = j;
      let nameHash = nameHashStep(0, html.charCodeAt(j));
      j++; // a name may start with "="
      while (j < n) {
        const code = html.charCodeAt(j);
        if (isSpace(code) || code === 47 || code === 62 || code === 61) break;
        nameHash = nameHashStep(nameHash, code);
        j++;
      }
      const nameSlotAt = nameSlot(html, nameStart, j, nameHash);
      const name = nameSlotAt >= 0 ? slotName(nameSlotAt) : html.slice(nameStart, j).toLowerCase();
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      let value = '';
      let valueFrom = j;
      let valueTo = j;
      if (j < n && html.charCodeAt(j) === 61 /* = */) {
        j++;
        while (j < n && isSpace(html.charCodeAt(j))) j++;
        const quote = j < n ? html.charCodeAt(j) : -1;
        if (quote === 34 || quote === 39) {
          const close = html.indexOf(quote === 34 ? '"' : "'", j + 1);
          if (close < 0 || close >= n) return -1;
          valueFrom = j + 1;
          valueTo = close;
          value = html.slice(valueFrom, close);
          j = close + 1;
        } else {
          valueFrom = j;
          while (j < n && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
          valueTo = j;
          value = html.slice(valueFrom, j);
        }
      }
      if (!hasAttribute(attributes, attrCount, name)) {
        attributes[attrCount++] = name;
        attributes[attrCount++] = value;
        if (nameSlotAt >= 0) tokenFlags |= ATTRIBUTE_FLAGS[nameSlotAt];
        if (!hasEntity && valueTo > valueFrom && ampFrom(valueFrom) < valueTo) hasEntity = true;
      }
    }
    const attrs = takeAttributes(attributes, attrCount);
    // The tokens keep values as written (their readers decode them as htmlparser2 does); the
    // tree decodes them itself, sharing the array when there is nothing to decode.
    token(TOKEN.START | tokenFlags, tag, slot, attrs, slashed ? 1 : 0, j);
    startTag = tag;
    startSlot = slot;
    startAttrs = attrs;
    startSelfClosing = selfClosing;
    startHasEntity = hasEntity;
    return j;
  };

  /**
   * Reads html[from, to). With `tree`, builds the light tree (and records tokens); without, only
   * records tokens, with htmlparser2's raw-text elements (the body of a noscript, iframe...). Returns
   * where the reading stopped: `to`, or earlier when the input ends inside a tag, comment or
   * raw-text element (the browser drops the rest).
   */
  const scan = (from: number, n: number, tree: boolean): void => {
    let i = from;
    // htmlparser2 cuts text at each "<", and a "<" that opens nothing begins the next piece of text;
    // the tree keeps such a "<" as a piece of its own. `textFrom` is where the tokens' text starts.
    let textFrom = from;
    const treeText = (): boolean => tree && !truncated;
    while (i < n) {
      // A "<" right after the last tag's ">" (minified markup) needs no search.
      let lt = html.charCodeAt(i) === 60 ? i : html.indexOf('<', i);
      if (lt >= n) lt = -1;
      if (lt < 0) {
        if (treeText()) addText(html.slice(i, n), n - i, ampFrom(i) < n, i);
        if (n > textFrom) token(TOKEN.TEXT, '', -1, null, textFrom, n);
        return;
      }
      if (lt > i && treeText()) addText(html.slice(i, lt), lt - i, ampFrom(i) < lt, i);
      if (lt > textFrom) token(TOKEN.TEXT, '', -1, null, textFrom, lt);
      textFrom = lt;
      const c = lt + 1 < n ? html.charCodeAt(lt + 1) : -1;

      if (c === 33 /* ! */ || c === 63 /* ? */) {
        if (html.startsWith('<!--', lt)) {
          // "<!-->" and "<!--->" are whole (empty) comments, as in browsers and htmlparser2.
          const close = html.indexOf('-->', lt + 2);
          if (close < 0 || close + 3 > n) return; // htmlparser2 too drops an unclosed comment
          i = close + 3;
        } else {
          const close = html.indexOf('>', lt + 2);
          if (close < 0 || close >= n) {
            // htmlparser2 keeps an unclosed declaration or instruction as text (less its "<!").
            if (!html.startsWith('<![CDATA[', lt)) token(TOKEN.TEXT, '', -1, null, lt + 2, n);
            return;
          }
          i = close + 1;
          if (tokens && html.startsWith('<![CDATA[', lt)) {
            // htmlparser2 reads a CDATA section to "]]>" where the tree (like a browser outside
            // svg and math) ends it at the first ">": the tokens skip what it skips.
            const cdataEnd = html.indexOf(']]>', lt + 9);
            skipTokensUntil = cdataEnd < 0 || cdataEnd + 3 > n ? n : cdataEnd + 3;
          }
        }
        textFrom = Math.max(i, skipTokensUntil);
        continue;
      }

      if (c === 47 /* / */) {
        if (!isLetter(lt + 2 < n ? html.charCodeAt(lt + 2) : -1)) {
          // The tree ignores "</" without a name to "/>"; htmlparser2 skips spaces after "</" and
          // reads a name there as an end tag ("</ p>"), and keeps "</>" and "</ >" as text.
          let k = lt + 2;
          while (k < n && isSpace(html.charCodeAt(k))) k++;
          const close = html.indexOf('>', lt + 2);
          if (close < 0 || close >= n) {
            if (k >= n) token(TOKEN.TEXT, '', -1, null, lt, n);
            else if (isLetter(html.charCodeAt(k))) endTagAtEnd(k);
            else token(TOKEN.TEXT, '', -1, null, k, n);
            return;
          }
          i = close + 1;
          if (k === close) continue; // text goes on from the "<"
          if (isLetter(html.charCodeAt(k))) token(TOKEN.END, endTagName(k, close), -1, null, lt, i);
          textFrom = i;
          continue;
        }
        const j = tagNameEnd(html, lt + 2, n);
        const slot = nameSlot(html, lt + 2, j, tagNameHash);
        const tag = slot >= 0 ? slotName(slot) : html.slice(lt + 2, j).toLowerCase();
        // Most end tags close right after their name ("</div>"): no search then.
        const close = html.charCodeAt(j) === 62 ? j : html.indexOf('>', j);
        if (close < 0 || close >= n) {
          endTagAtEnd(lt + 2);
          return;
        }
        i = close + 1;
        textFrom = i;
        // htmlparser2 ends an end tag's name at a space or ">" only ("</p/>" names "p/").
        const slashed = html.charCodeAt(j) === 47;
        token(TOKEN.END, slashed ? endTagName(lt + 2, close) : tag, slashed ? -1 : slot, null, lt, i);
        if (!treeText()) continue;
        if (tag !== 'body' && tag !== 'html' && openCount(slot, tag) > 0) popUntil(tag);
        continue;
      }

      if (!isLetter(c)) {
        if (treeText()) addText('<', 1, false, -1);
        i = lt + 1;
        continue;
      }

      i = readStartTag(lt, n);
      if (i < 0) {
        textFrom = n; // the input ends inside the tag: dropped
        break;
      }
      textFrom = i;
      const tag = startTag;
      const slot = startSlot;
      const attrs = startAttrs;
      const selfClosing = startSelfClosing;
      const hasEntity = startHasEntity;
      const rule = tagRuleAt(slot, tag);
      let inTree = false;
      if (treeText()) {
        let treeAttrs = attrs;
        if (hasEntity) {
          treeAttrs = attrs.slice();
          for (let k = 1; k < treeAttrs.length; k += 2) treeAttrs[k] = decodeEntities(treeAttrs[k]);
        }
        open(tag, slot, rule, treeAttrs, selfClosing);
        if (truncated) {
          // The element cap ends the tree; the tokens read on (their readers have caps of their own).
          if (!tokens) return;
        } else {
          inTree = true;
          if (tag === 'meta') {
            const name = attr(treeAttrs, 'name') || attr(treeAttrs, 'property');
            if (name) metas.push({ name: name.toLowerCase(), content: attr(treeAttrs, 'content') ?? '' });
          } else if (tag === 'base' && baseHref === null) {
            baseHref = attr(treeAttrs, 'href');
          }
        }
      }

      // Raw text: the tree's elements (outside svg and math), else htmlparser2's.
      const treeRaw = inTree && rule.rawText && foreignDepth === 0;
      const tokenRaw = !inTree && rule.rawForTokens;
      if (!treeRaw && !tokenRaw) continue;
      const found = tag === 'plaintext' ? -1 : rawTextEndAt(html, tag, i, true);
      const bodyEnd = found >= 0 && found < n ? found : n;
      if (
        treeRaw &&
        tokens &&
        bodyEnd < n &&
        rule.rawForTokens &&
        html.charCodeAt(found + tag.length + 2) === 47
      ) {
        // "</script/": the tree's element ends there, htmlparser2's goes on to "</script>" (or a space).
        const at = rawTextEndAt(html, tag, i, false);
        const tokenBodyEnd = at >= 0 && at < n ? at : n;
        token(tag === 'title' ? TOKEN.RCDATA : TOKEN.RAW, '', -1, null, i, tokenBodyEnd);
        const tokenClose = tokenBodyEnd < n ? html.indexOf('>', tokenBodyEnd + 2) : -1;
        if (tokenClose >= 0 && tokenClose < n)
          token(TOKEN.END, tag, slot, null, tokenBodyEnd, tokenClose + 1);
        skipTokensUntil = tokenClose >= 0 && tokenClose < n ? tokenClose + 1 : n;
      }
      if (treeRaw) {
        const body = html.slice(i, bodyEnd);
        addText(body, bodyEnd - i, (tag === 'textarea' || tag === 'title') && ampFrom(i) < bodyEnd, i);
        if (tag === 'script') {
          const src = attr(elements[elements.length - 1].attrs, 'src');
          if (src !== null) scriptSrc.push(src.trim());
          else if (body && inlineScripts.length < MAX_INLINE_SCRIPTS) inlineScripts.push(body);
        } else if (tag === 'style') {
          styles.push(body);
        }
      }
      if (rule.rawForTreeOnly) {
        // htmlparser2 reads this body as markup: so do the tokens.
        if (tokens) scan(i, bodyEnd, false);
      } else if (bodyEnd > i && i >= skipTokensUntil) {
        token(tag === 'title' ? TOKEN.RCDATA : TOKEN.RAW, '', -1, null, i, bodyEnd);
      }
      if (bodyEnd >= n) return;
      const close = html.indexOf('>', bodyEnd + 2);
      if (close < 0 || close >= n) return;
      token(TOKEN.END, tag, slot, null, bodyEnd, close + 1);
      if (treeRaw) popUntil(tag);
      i = close + 1;
      textFrom = Math.max(i, skipTokensUntil);
    }
    if (n > textFrom) token(TOKEN.TEXT, '', -1, null, textFrom, n);
  };

  /**
   * An end tag the input ends in ("</p" or "</p "): htmlparser2 drops the first, but takes the
   * second as the end tag, followed by its last character as text.
   */
  const endTagAtEnd = (at: number): void => {
    let k = at;
    while (k < html.length && !isSpace(html.charCodeAt(k))) k++;
    if (k >= html.length) return;
    token(TOKEN.END, html.slice(at, k).toLowerCase(), -1, null, at - 2, html.length);
    token(TOKEN.TEXT, '', -1, null, html.length - 1, html.length);
  };

  /** The token arrays cut to the `count` tokens read. */
  const tokensOfLength = (count: number): MarkupTokens => {
    tokenNames.length = count;
    tokenAttrs.length = count;
    return {
      kinds: new Int32Array(tokenData.buffer, 0, count),
      names: tokenNames,
      attrs: tokenAttrs,
      from: new Int32Array(tokenData.buffer, tokenCapacity * Int32Array.BYTES_PER_ELEMENT, count),
      to: new Int32Array(tokenData.buffer, tokenCapacity * 2 * Int32Array.BYTES_PER_ELEMENT, count),
    };
  };

  scan(0, html.length, true);
  while (stack.length) pop();

  const text = visible.join(' ').replace(WHITESPACE_TO_COLLAPSE, ' ').trim().slice(0, TEXT_LIMIT);
  return {
    light: { elements, texts, scriptSrc, inlineScripts, styles, metas, baseHref, text, truncated },
    tokens: tokens ? tokensOfLength(tokenCount) : null,
  };
}

/** The light tree alone (detection of a rendered DOM, and tests). */
export function parseHtml(html: string): LightDocument {
  return readMarkup(html, { tokens: false }).light;
}

export function getAttribute(element: LightElement, name: string): string | null {
  const attrs = element.attrs;
  for (let k = 0; k < attrs.length; k += 2) if (attrs[k] === name) return attrs[k + 1];
  return null;
}

export function textContent(doc: LightDocument, element: LightElement): string {
  return doc.texts.slice(element.textStart, element.textEnd).join('');
}
