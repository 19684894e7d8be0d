import { parseRegexSource, type RegexNode } from './regex-source';

/**
 * Where a literal of a regex lies in every match: `literal` (lowercase; the regex ignores case)
 * starts between `minOffset` and `maxOffset` characters after the match's start, and every match
 * starts with `start` (a character no case folding touches).
 */
export interface LiteralWindow {
  readonly literal: string;
  readonly minOffset: number;
  readonly maxOffset: number;
  readonly start: string;
}

/**
 * The regex's match (as `regex.exec(text)` gives it: same index, groups and text) searched for only
 * near the occurrences of a literal every match holds. A regex like `<[^>]{1,250}\sdata-v-` tries
 * each "<" of a page and reads up to 250 characters from each; a match can only start at a "<"
 * within 252 characters before a "data-v", which a regex of that literal alone finds at the speed
 * of a plain scan. The regex runs sticky at each start those windows allow, in ascending order (so
 * the first match is the leftmost), on the whole text (so assertions and lookbehinds read what they
 * read in a plain exec).
 */
export class WindowedRegex {
  private readonly sticky: RegExp;
  private readonly locator: RegExp;

  constructor(
    regex: RegExp,
    private readonly window: LiteralWindow,
  ) {
    this.sticky = new RegExp(regex.source, `${regex.flags}y`);
    this.locator = new RegExp(window.literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'gi');
  }

  exec(text: string): RegExpExecArray | null {
    const { minOffset, maxOffset, start } = this.window;
    const { sticky, locator } = this;
    // Starts below `next` were tried or lie in no window.
    let next = 0;
    // The first start character at or after `next` (-1: none left), kept across windows: a window
    // without one must not search the text after it again for each literal after it.
    let startAt = text.indexOf(start);
    locator.lastIndex = minOffset;
    for (let found = locator.exec(text); found !== null && startAt >= 0; found = locator.exec(text)) {
      const at = found.index;
      // Occurrences may overlap ("aaa" in "aaaa"): the next one is looked for from the next character.
      locator.lastIndex = at + 1;
      const last = at - minOffset;
      const from = Math.max(next, at - maxOffset);
      if (startAt < from) startAt = text.indexOf(start, from);
      for (; startAt >= 0 && startAt <= last; startAt = text.indexOf(start, startAt + 1)) {
        sticky.lastIndex = startAt;
        const match = sticky.exec(text);
        if (match !== null) return match;
      }
      next = last + 1;
    }
    return null;
  }
}

/** Windows wider than this are not looked for. */
const MAX_WINDOW = 1000;
/**
 * A literal this close to the start is not worth a window: the regex's own scan for its start reads
 * as fast, and tries little at each start.
 */
const MIN_WINDOW_OFFSET = 32;
const MIN_WINDOWED_LITERAL = 3;

/**
 * The window of the longest literal every match of the regex holds far from its start (but within
 * bounds), null when there is none: flags other than `i`, a source the parser does not read or
 * with escapes whose width it does not model, a start character that case folding touches or that
 * differs between matches, no run of three ASCII characters or more reached through bounded items.
 */
export function literalWindow(regex: RegExp): LiteralWindow | null {
  if (regex.flags !== 'i') return null;
  const source = regex.source;
  if (/\\[ck0-9]/.test(source)) return null;
  const root = parseRegexSource(source);
  if (root === null) return null;
  const items = flatItems(root);
  const first = items.find((item) => !isZeroWidth(item));
  if (first?.t !== 'char' || !isCaseless(first.c.charCodeAt(0))) return null;
  const start = first.c[0];
  let best: LiteralWindow | null = null;
  let minOffset = 0;
  let maxOffset = 0;
  for (const item of items) {
    if (
      item.t === 'char' &&
      item.c.length >= MIN_WINDOWED_LITERAL &&
      isPlainAscii(item.c) &&
      maxOffset >= MIN_WINDOW_OFFSET &&
      (best === null || item.c.length > best.literal.length)
    )
      best = { literal: item.c, minOffset, maxOffset, start };
    const width = widthOf(item);
    if (width === null) break;
    minOffset += width[0];
    maxOffset += width[1];
    if (maxOffset > MAX_WINDOW) break;
  }
  return best;
}

/** The items of the top sequence, the bodies of its groups that are sequences spliced in. */
function flatItems(node: RegexNode): RegexNode[] {
  if (node.t === 'seq') return node.items.flatMap(flatItems);
  if (node.t === 'group' && !node.zeroWidth && (node.body.t === 'seq' || node.body.t === 'char'))
    return flatItems(node.body);
  return [node];
}

function isZeroWidth(node: RegexNode): boolean {
  return node.t === 'assert' || (node.t === 'group' && node.zeroWidth);
}

/** The fewest and most characters a node consumes; null when unknown. */
function widthOf(node: RegexNode): [number, number] | null {
  switch (node.t) {
    case 'char':
      // A lowercased non-ASCII character may be longer than the one matched; a "{" may be a
      // quantifier the parser did not read as one.
      return isPlainAscii(node.c) ? [node.c.length, node.c.length] : null;
    case 'set':
      return [1, 1];
    case 'assert':
      return [0, 0];
    case 'backref':
      return null;
    case 'group':
      return node.zeroWidth ? [0, 0] : widthOf(node.body);
    case 'rep': {
      const body = widthOf(node.body);
      if (body === null) return null;
      // An empty body repeated any number of times stays empty (0 * Infinity is NaN).
      return [body[0] * node.min, body[1] === 0 ? 0 : body[1] * node.max];
    }
    case 'seq': {
      let min = 0;
      let max = 0;
      for (const item of node.items) {
        const width = widthOf(item);
        if (width === null) return null;
        min += width[0];
        max += width[1];
      }
      return [min, max];
    }
    case 'alt': {
      let min = Infinity;
      let max = 0;
      for (const alt of node.alts) {
        const width = widthOf(alt);
        if (width === null) return null;
        min = Math.min(min, width[0]);
        max = Math.max(max, width[1]);
      }
      return [min, max];
    }
  }
}

/** ASCII without "{" (see widthOf). */
function isPlainAscii(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code > 127 || code === 123) return false;
  }
  return true;
}

/** Whether a non-unicode `i` regex matches this character with itself alone (ASCII but letters). */
function isCaseless(code: number): boolean {
  return code < 128 && !((code >= 65 && code <= 90) || (code >= 97 && code <= 122));
}
