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

/** Reads the first copyright statement of a text (a page's footer, usually). */
export function findCopyright(text: string, now = new Date()): CopyrightFacts | undefined {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    // Footers are at the end: read the page bottom-up.
    const line = lines[i];
    if (line.length > 2000) continue;
    const mark = MARK.exec(line);
    if (!mark) continue;
    let rest = line.slice(mark.index).replace(TAIL, '');
    rest = rest.split(/\s+[|•·]\s+|\s{2,}/)[0];
    const statement = cleanText(rest, 150);
    if (!statement) continue;
    const latest = Math.max(
      ...[...statement.matchAll(YEAR)].map((m) => Number(m[0])).filter((y) => y <= now.getUTCFullYear() + 1),
      0,
    );
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
  return undefined;
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
