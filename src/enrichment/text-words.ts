/**
 * The words of a text as its matches of [\p{L}\p{N}][\p{L}\p{N}'’-]* (flags g and u) are: a letter
 * or digit, then letters, digits, apostrophes and hyphens. Titles and headings are mostly ASCII, whose
 * letters and digits are told apart by their codes here; only other characters are asked of the
 * Unicode classes, one sticky test at a time, instead of irregexp matching every character against
 * them.
 */

/** A letter or digit at lastIndex (a whole code point, surrogate pairs included). */
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/uy;

/** The code units of the letter or digit that starts at `at`, 0 when none starts there. */
function letterOrDigitAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code < 128)
    return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90) ? 1 : 0;
  LETTER_OR_DIGIT.lastIndex = at;
  return LETTER_OR_DIGIT.test(text) ? LETTER_OR_DIGIT.lastIndex - at : 0;
}

/** The code units of the code point at `at` (2 for a surrogate pair). */
function codePointUnits(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code < 0xd800 || code > 0xdbff || at + 1 >= text.length) return 1;
  const next = text.charCodeAt(at + 1);
  return next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
}

/** "'", "’" and "-": inside a word, not at its start. */
function isJoiner(code: number): boolean {
  return code === 39 || code === 0x2019 || code === 45;
}

/** The text's words, in order (see the head of this file). */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  const end = text.length;
  let at = 0;
  while (at < end) {
    const first = letterOrDigitAt(text, at);
    if (first === 0) {
      at += codePointUnits(text, at);
      continue;
    }
    const start = at;
    at += first;
    while (at < end) {
      if (isJoiner(text.charCodeAt(at))) at++;
      else {
        const next = letterOrDigitAt(text, at);
        if (next === 0) break;
        at += next;
      }
    }
    words.push(text.slice(start, at));
  }
  return words;
}
