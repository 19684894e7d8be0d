import { addCapped, cleanText, LIMITS, nonEmpty } from './limits';
import { metaValue } from './page-document';
import type { SiteContext } from './site-context';
import type { KeywordsSet } from './site-enrichment';

/** Words that carry no topic, in the languages the index meets most (and the web's own filler). */
const STOP_WORDS = new Set(
  (
    'a an the and or of for to in on at by with from as is are be this that it its our your you we us my ' +
    'home homepage welcome page site website official online news blog contact about more new best top all ' +
    'der die das und oder für zu im in am an auf mit von ist sind ein eine einer unser unsere ihr sie wir startseite willkommen ' +
    'le la les et ou de des du pour à au aux en sur avec un une nos notre votre vous accueil bienvenue ' +
    'el los las y o para en con por un una nuestro nuestra su inicio bienvenido ' +
    'il lo gli e o di da per con su un una nostro nostra benvenuto ' +
    'het een en of voor met op van ons onze welkom ' +
    'o os as e ou para com em um uma nosso nossa bem-vindo'
  ).split(' '),
);

/** Letters and numbers (\p{L}, \p{N}) among the first 256 characters, looked up instead of matched. */
const WORD_START_TABLE = Uint8Array.from({ length: 256 }, (_, code) =>
  /[\p{L}\p{N}]/u.test(String.fromCharCode(code)) ? 1 : 0,
);
/** A letter or number at lastIndex, for the characters past the table. */
const WORD_START_AT = /[\p{L}\p{N}]/uy;

/** Words kept from the title and headings. */
const MAX_TERMS = 6;

/**
 * keywords: the home page's meta keywords (as the site lists them), then its most frequent topic
 * words from the title and the h1/h2 headings (stop words of nine languages and the site's own
 * name left out), lowercased, up to ten in all. Absent when the home page names no topic.
 */
export function extractKeywords(context: SiteContext): KeywordsSet {
  const home = context.home?.doc;
  if (!home) return {};
  const keywords = new Set<string>();
  // Most home pages list none: no split of an empty text.
  const listedKeywords = metaValue(home, 'keywords');
  for (const raw of listedKeywords ? listedKeywords.split(/[,;]/).slice(0, 50) : []) {
    const keyword = cleanText(raw, 60)?.toLowerCase();
    if (keyword && /\p{L}/u.test(keyword)) addCapped(keywords, keyword, LIMITS.values);
  }
  const own = new Set((context.domainLabel ?? '').toLowerCase().split(/[-_]+/));
  const counts = new Map<string, number>();
  const count = (word: string): void => {
    if (!STOP_WORDS.has(word) && !own.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  };
  for (const text of [home.title ?? '', ...home.headings].slice(0, LIMITS.headings))
    forEachTopicWord(text.toLowerCase(), count);
  const listed = keywords.size > 0 ? [...keywords].join(' ').split(/\s+/) : [];
  for (const term of mostFrequent(counts, listed, MAX_TERMS)) addCapped(keywords, term, LIMITS.values);
  const list = nonEmpty(keywords);
  return list ? { keywords: list } : {};
}

/**
 * The `max` terms counted most often, but for the listed ones, highest count first and, among
 * equal counts, first counted first: what a stable sort of all of them gives, without sorting (or
 * copying) the many terms a title and its headings count once.
 */
export function mostFrequent(counts: Map<string, number>, listed: readonly string[], max: number): string[] {
  const terms: string[] = [];
  const termCounts: number[] = [];
  for (const [term, count] of counts) {
    // After every term counted as often or more (they came first).
    let at = terms.length;
    while (at > 0 && termCounts[at - 1] < count) at--;
    if (at >= max || listed.includes(term)) continue;
    terms.splice(at, 0, term);
    termCounts.splice(at, 0, count);
    if (terms.length > max) {
      terms.pop();
      termCounts.pop();
    }
  }
  return terms;
}

/**
 * Gives `take` each word of the text, in order, that is 3 to 40 characters long and not digits only:
 * a word is a letter or number (\p{L}, \p{N}) and all the letters, numbers, "'", "’" and "-" that
 * follow it, as a global regex match of them finds words. One pass over the characters, most of
 * them looked up in a table: no array of matches, no regex run per word, and no copy of a word too
 * short or too long.
 */
export function forEachTopicWord(text: string, take: (word: string) => void): void {
  const length = text.length;
  let at = 0;
  while (at < length) {
    let width = wordCharacterWidth(text, at);
    if (width === 0) {
      // Not a word's start: the next character, a pair of surrogates read as one.
      at += isPairAt(text, at) ? 2 : 1;
      continue;
    }
    const start = at;
    let digitsOnly = true;
    do {
      const code = text.charCodeAt(at);
      if (code < 0x30 || code > 0x39) digitsOnly = false;
      at += width;
      width = at < length ? wordCharacterWidth(text, at) || continuationWidth(text.charCodeAt(at)) : 0;
    } while (width > 0);
    const wordLength = at - start;
    if (wordLength >= 3 && wordLength <= 40 && !digitsOnly) take(text.slice(start, at));
  }
}

/** The width of the letter or number at `at` (2 for one written as a surrogate pair), else 0. */
function wordCharacterWidth(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code < 256) return WORD_START_TABLE[code];
  WORD_START_AT.lastIndex = at;
  if (!WORD_START_AT.test(text)) return 0;
  return WORD_START_AT.lastIndex - at;
}

/** 1 for the characters a word goes on with but cannot start with: "'", "’" and "-". */
function continuationWidth(code: number): number {
  return code === 0x27 || code === 0x2019 || code === 0x2d ? 1 : 0;
}

/** Whether a high surrogate followed by a low one starts at `at`. */
function isPairAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0xd800 || code > 0xdbff || at + 1 >= text.length) return false;
  const next = text.charCodeAt(at + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}
