import { analyseSource } from './regex-source';

/**
 * The sets of lowercase ASCII strings of which every text a regex matches holds one each (`[]`
 * when nothing is known): the required literals of its source, as the prefilters of the other
 * kinds use them. Only ASCII strings are kept: a non-unicode `i` regex matches an ASCII character
 * with that character in either case only, and lowercasing a text turns those into the lowercase
 * one, so a lowercased text holding none of a set's strings holds no match. A non-ASCII character
 * may match one that lowercases otherwise (`σ` and `ς`): a set with one is dropped. A regex with
 * other flags than `i` keeps nothing (its source may read otherwise).
 */
export function requiredTextLiterals(regex: RegExp): readonly (readonly string[])[] {
  let known = answers.get(regex);
  if (known === undefined) {
    known = readRequired(regex);
    answers.set(regex, known);
  }
  return known;
}

/** Answers per regex: the same few dozen DOM text patterns are asked about on every page. */
const answers = new WeakMap<RegExp, readonly (readonly string[])[]>();

function readRequired(regex: RegExp): string[][] {
  if (regex.flags !== 'i' && regex.flags !== '') return [];
  const { literals, alsoRequired } = analyseSource(regex.source);
  if (literals === null) return [];
  return [literals, ...alsoRequired].filter((set) => set.length > 0 && set.every(isAscii));
}

function isAscii(text: string): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 127) return false;
  return true;
}

/** Characters lowercased and searched at a time: a string this long stays out of V8's large-object space. */
const CHUNK = 16_384;

/**
 * Whether `texts[start..end)` joined hold, lowercased, a string of each set, read a chunk at a time
 * (each chunk begins with the last characters of the one before, as many as the longest string
 * less one, so that no occurrence is cut): the text itself, a long string when the range is a
 * page's wrapper, is never built.
 */
export function runHoldsAll(
  texts: readonly string[],
  start: number,
  end: number,
  sets: readonly (readonly string[])[],
): boolean {
  let longest = 0;
  for (const set of sets) for (const string of set) longest = Math.max(longest, string.length);
  const overlap = longest - 1;
  const pending = sets.slice();
  let chunk = '';
  for (let k = start; k < end; k++) {
    chunk += texts[k];
    if (chunk.length < CHUNK && k + 1 < end) continue;
    const lower = chunk.toLowerCase();
    for (let s = pending.length - 1; s >= 0; s--) if (holdsOne(lower, pending[s])) pending.splice(s, 1);
    if (pending.length === 0) return true;
    chunk = chunk.slice(Math.max(0, chunk.length - overlap));
  }
  return false;
}

function holdsOne(text: string, strings: readonly string[]): boolean {
  for (const string of strings) if (text.includes(string)) return true;
  return false;
}
