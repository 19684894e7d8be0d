/**
 * Whether a regex has no assertion (`^`, `$`, `\b`, `\B`, lookahead, lookbehind) and keeps no
 * state between calls (no `g` or `y` flag). Such a regex reads only the characters it consumes, so
 * a match inside part of a string is a match inside the whole string: a regex that does not match a
 * string matches none of its substrings. Anything this reader is unsure of counts as an assertion.
 */
export function isAssertionFree(regex: RegExp): boolean {
  let known = answers.get(regex);
  if (known === undefined) {
    known = readAssertionFree(regex);
    answers.set(regex, known);
  }
  return known;
}

/** Answers per regex: the same few dozen DOM text patterns are asked about on every page. */
const answers = new WeakMap<RegExp, boolean>();

function readAssertionFree(regex: RegExp): boolean {
  if (regex.global || regex.sticky) return false;
  const source = regex.source;
  let inClass = false;
  for (let k = 0; k < source.length; k++) {
    const c = source.charCodeAt(k);
    if (c === BACKSLASH) {
      k++;
      const escaped = source.charCodeAt(k);
      // In a class `\b` is a backspace; outside, `\b` and `\B` are word boundaries.
      if (!inClass && (escaped === LOWER_B || escaped === UPPER_B)) return false;
    } else if (inClass) {
      if (c === CLOSE_BRACKET) inClass = false;
    } else if (c === OPEN_BRACKET) {
      inClass = true;
      // `[^` negates the class: its `^` is no assertion.
      if (source.charCodeAt(k + 1) === CARET) k++;
    } else if (c === CARET || c === DOLLAR) {
      return false;
    } else if (
      c === OPEN_PAREN &&
      source.charCodeAt(k + 1) === QUESTION &&
      source.charCodeAt(k + 2) !== COLON
    ) {
      return false; // (?= (?! (?<= (?<! and named groups, which are read as unsure
    }
  }
  return true;
}

const BACKSLASH = 92;
const LOWER_B = 98;
const UPPER_B = 66;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const CARET = 94;
const DOLLAR = 36;
const OPEN_PAREN = 40;
const QUESTION = 63;
const COLON = 58;
