import { cleanText } from './limits';

export interface CopyrightFacts {
  /** The statement as the site writes it, up to its holder ("© 2015–2024 Acme GmbH"). */
  statement: string;
  /** The latest year it names. */
  year?: number;
  /** Who holds it, when named ("Acme GmbH"). */
  holder?: string;
}

/** A copyright mark: the © sign, "(c)", or the word followed by a year or the sign. */
const MARK = /(?:©|\(c\)|&copy;|\bcopyright\b(?=\s*(?:©|\(c\)|(?:19|20)\d\d)))/i;
const YEAR = /\b(?:19|20)\d\d\b/g;
const TAIL =
  /\s*(?:[.,;|•·]\s*)?(?:all rights reserved|alle rechte vorbehalten|tous droits réservés|todos los derechos reservados|tutti i diritti riservati|powered by|made with|impressum|privacy|datenschutz)\b.*$/i;

/**
 * What every MARK match starts with (the word without its boundaries and look-ahead): the cases
 * spelt out, as /i without /u folds no other character to these letters. Sticky: it is tried only
 * where markStarts finds the text may hold one.
 */
const MARK_START = /[Cc][Oo][Pp][Yy][Rr][Ii][Gg][Hh][Tt]|©|\([Cc]\)|&[Cc][Oo][Pp][Yy];/y;
/**
 * Where a MARK_START match may start, as one character found at it: "©", "(c)" and "&copy;". Each
 * is found with indexOf, which scans a text many times faster than irregexp scans it for
 * MARK_START's alternatives.
 */
const MARK_START_HINTS = ['©', '(', '&'];
/**
 * The "y" of "copyright", in either case, three characters after the word's start: found with
 * indexOf, and tried only when an "r" or "R" follows it. One scan for each case of the "y" instead
 * of one for each case of "yr": a text's every "y" stops such a scan, and most are no mark's.
 */
const COPYRIGHT_Y = ['y', 'Y'];
const Y_OFFSET = 3;
/** "r" and "R" set to lowercase (0x20 set), and nothing else. */
const LOWER_R = 0x72;

/** Where MARK_START matches in the text, in ascending order. */
export function markStarts(text: string): number[] {
  const starts: number[] = [];
  for (const hint of MARK_START_HINTS) {
    for (let at = text.indexOf(hint); at >= 0; at = text.indexOf(hint, at + 1)) {
      MARK_START.lastIndex = at;
      if (MARK_START.test(text)) starts.push(at);
    }
  }
  for (const y of COPYRIGHT_Y) {
    for (let at = text.indexOf(y, Y_OFFSET); at >= 0; at = text.indexOf(y, at + 1)) {
      if ((text.charCodeAt(at + 1) | 0x20) !== LOWER_R) continue;
      MARK_START.lastIndex = at - Y_OFFSET;
      if (MARK_START.test(text)) starts.push(at - Y_OFFSET);
    }
  }
  return starts.sort((a, b) => a - b);
}

/** Reads the first copyright statement of a text (a page's footer, usually). */
export function findCopyright(text: string, now = new Date()): CopyrightFacts | undefined {
  // Only the lines holding a MARK_START can hold a mark: found without a regex scan of the text,
  // then read bottom-up (footers are at the end) line by line as before, no other line cut out of
  // the text.
  const lineStarts: number[] = [];
  for (const start of markStarts(text)) {
    const lineStart = text.lastIndexOf('\n', start) + 1;
    if (lineStarts.length === 0 || lineStarts[lineStarts.length - 1] !== lineStart)
      lineStarts.push(lineStart);
  }
  for (let i = lineStarts.length - 1; i >= 0; i--) {
    const lineEnd = text.indexOf('\n', lineStarts[i]);
    const facts = copyrightInLine(text.slice(lineStarts[i], lineEnd < 0 ? text.length : lineEnd), now);
    if (facts) return facts;
  }
  return undefined;
}

/** The copyright statement of one line of text, from its first mark. */
function copyrightInLine(line: string, now: Date): CopyrightFacts | undefined {
  if (line.length > 2000) return undefined;
  const mark = MARK.exec(line);
  if (!mark) return undefined;
  let rest = line.slice(mark.index).replace(TAIL, '');
  rest = rest.split(/\s+[|•·]\s+|\s{2,}/)[0];
  const statement = cleanText(rest, 150);
  if (!statement) return undefined;
  const latest = latestYear(statement, now.getUTCFullYear() + 1);
  const holder = cleanText(
    statement
      .replace(/^(?:©|\(c\)|&copy;|copyright)\s*/i, '')
      .replace(/^(?:©|\(c\))\s*/i, '')
      .replace(/^(?:(?:19|20)\d\d\s*(?:[-–—]|to|bis)?\s*(?:(?:19|20)\d\d|present|heute)?\s*)/i, '')
      .replace(/^(?:by|von|par)\s+/i, '')
      .replace(/[\s.,;:!–—-]+$/, ''),
    80,
  );
  return {
    statement,
    ...(latest > 0 ? { year: latest } : {}),
    ...(holder && /\p{L}/u.test(holder) && !/^(?:copyright|\(c\)|©)$/i.test(holder) ? { holder } : {}),
  };
}

/**
 * The latest YEAR match of a text that is not past `until`, 0 when there is none. Read with exec
 * from the shared YEAR: matchAll would clone the regex for each statement.
 */
function latestYear(text: string, until: number): number {
  let latest = 0;
  YEAR.lastIndex = 0;
  for (let match = YEAR.exec(text); match !== null; match = YEAR.exec(text)) {
    const year = Number(match[0]);
    if (year <= until && year > latest) latest = year;
  }
  return latest;
}

/** Copyright marks, years and year ranges where a name begins or ends ("© 2019–2026", "Copyright (c)"). */
const LEADING_MARKS =
  /^(?:(?:©|\(c\)|&copy;|copyright\b|(?:19|20)\d\d\b(?:\s*(?:[-–—]|to|bis)\s*(?:(?:19|20)\d\d|present|heute)\b)?)[\s.,;:]*)+(?:(?:by|von|par)\s+)?/i;
const TRAILING_MARKS = /(?:[\s.,;:]*(?:©|\(c\)|&copy;|copyright\b|(?:19|20)\d\d\b))+[\s.,;:]*$/i;
const ANY_MARK = /©|\(c\)|&copy;|\bcopyright\b/i;

/**
 * A company name without the copyright notice around it ("© 2026 Acme GmbH" → "Acme GmbH"): an
 * imprint line, a title segment or a footer often carries the mark and the year with the name.
 * A name without a mark is left as it is ("2020 Solutions Ltd" keeps its year). Undefined when
 * nothing but the notice is left.
 */
export function withoutCopyrightMarks(name: string): string | undefined {
  if (!ANY_MARK.test(name)) return name;
  const bare = name.replace(LEADING_MARKS, '').replace(TRAILING_MARKS, '').trim();
  return /\p{L}/u.test(bare) ? bare : undefined;
}
