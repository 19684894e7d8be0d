/**
 * Where a JavaScript text holds data rather than code: its string, template and regular-expression
 * literals and its comments. A context rule (context-rules.ts) uses it to tell a pattern found in
 * a script's code from one found only in text the script carries (a URL in a message, an example in
 * a comment). A lexer, not a parser: it never fails, and on text that is not JavaScript it still
 * returns ranges, which only makes the rule more cautious there.
 */

/** Kind of a literal range. */
export type LiteralKind = 'string' | 'comment' | 'regex';

export interface LiteralRange {
  start: number;
  /** Exclusive. */
  end: number;
  kind: LiteralKind;
}

/** Keywords after which a `/` starts a regular expression, not a division. */
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

function isIdentifierChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 36 ||
    code === 95 ||
    code > 127
  );
}

/**
 * The literal ranges of a JavaScript text, in order. Template literals are one range each, their
 * `${…}` substitutions included (a substitution is rare in what patterns look for, and the range
 * then errs on the side of data).
 */
export function jsLiteralRanges(code: string): LiteralRange[] {
  const ranges: LiteralRange[] = [];
  const n = code.length;
  // Whether a `/` here would start a regex: true after an operator or an opening bracket.
  let regexAllowed = true;
  let i = 0;
  while (i < n) {
    const c = code.charCodeAt(i);
    // whitespace
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || c === 0xfeff) {
      i++;
      continue;
    }
    if (c === 47 /* / */) {
      const next = code.charCodeAt(i + 1);
      if (next === 47) {
        const end = code.indexOf('\n', i + 2);
        const stop = end < 0 ? n : end;
        ranges.push({ start: i, end: stop, kind: 'comment' });
        i = stop;
        continue;
      }
      if (next === 42) {
        const end = code.indexOf('*/', i + 2);
        const stop = end < 0 ? n : end + 2;
        ranges.push({ start: i, end: stop, kind: 'comment' });
        i = stop;
        continue;
      }
      if (regexAllowed) {
        let j = i + 1;
        let inClass = false;
        while (j < n) {
          const d = code.charCodeAt(j);
          if (d === 10) break; // a regex cannot span lines: it was a division after all
          if (d === 92 /* \ */) {
            j += 2;
            continue;
          }
          if (d === 91) inClass = true;
          else if (d === 93) inClass = false;
          else if (d === 47 && !inClass) break;
          j++;
        }
        if (j < n && code.charCodeAt(j) === 47) {
          j++;
          while (j < n && isIdentifierChar(code.charCodeAt(j))) j++; // flags
          ranges.push({ start: i, end: j, kind: 'regex' });
          i = j;
          regexAllowed = false;
          continue;
        }
      }
      i++;
      regexAllowed = true;
      continue;
    }
    if (c === 34 || c === 39 /* " ' */) {
      let j = i + 1;
      while (j < n) {
        const d = code.charCodeAt(j);
        if (d === 92) {
          j += 2;
          continue;
        }
        if (d === c || d === 10) break;
        j++;
      }
      const stop = Math.min(n, j + 1);
      ranges.push({ start: i, end: stop, kind: 'string' });
      i = stop;
      regexAllowed = false;
      continue;
    }
    if (c === 96 /* ` */) {
      const stop = templateEnd(code, i + 1);
      ranges.push({ start: i, end: stop, kind: 'string' });
      i = stop;
      regexAllowed = false;
      continue;
    }
    if (isIdentifierChar(c)) {
      let j = i + 1;
      while (j < n && isIdentifierChar(code.charCodeAt(j))) j++;
      regexAllowed = REGEX_AFTER_WORD.has(code.slice(i, j));
      i = j;
      continue;
    }
    // ) ] } end an operand; any other punctuator expects one
    regexAllowed = !(c === 41 || c === 93 || c === 125);
    i++;
  }
  return ranges;
}

/** The index just after the template literal whose body starts at `from` (nested templates followed). */
function templateEnd(code: string, from: number): number {
  const n = code.length;
  let j = from;
  while (j < n) {
    const d = code.charCodeAt(j);
    if (d === 92) {
      j += 2;
      continue;
    }
    if (d === 96) return j + 1;
    if (d === 36 && code.charCodeAt(j + 1) === 123) {
      // a substitution: skip to its closing brace, over nested strings and templates
      let depth = 1;
      j += 2;
      while (j < n && depth > 0) {
        const e = code.charCodeAt(j);
        if (e === 123) depth++;
        else if (e === 125) depth--;
        else if (e === 96) {
          j = templateEnd(code, j + 1);
          continue;
        } else if (e === 34 || e === 39) {
          let k = j + 1;
          while (k < n && code.charCodeAt(k) !== e && code.charCodeAt(k) !== 10)
            k += code.charCodeAt(k) === 92 ? 2 : 1;
          j = k + 1;
          continue;
        }
        j++;
      }
      continue;
    }
    j++;
  }
  return n;
}

/** The range holding [start, end), or undefined when some of it is code. Ranges must be in order. */
export function literalAround(
  ranges: readonly LiteralRange[],
  start: number,
  end: number,
): LiteralRange | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const range = ranges[mid];
    if (range.end <= start) lo = mid + 1;
    else if (range.start > start) hi = mid - 1;
    else return end <= range.end ? range : undefined;
  }
  return undefined;
}
