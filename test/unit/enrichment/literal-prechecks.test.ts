import { findCopyright, markStarts } from '../../../src/enrichment/copyright';
import { deobfuscate } from '../../../src/enrichment/email.extractor';
import { seededRandom } from '../../helpers/seeded-random';

/**
 * The copyright and e-mail readers find where a regex can match with indexOf before they run it:
 * they must find what the regex scans of the whole text found (kept here as they were).
 */

const MARK = /[Cc][Oo][Pp][Yy][Rr][Ii][Gg][Hh][Tt]|©|\([Cc]\)|&[Cc][Oo][Pp][Yy];/g;

/** The lines findCopyright reads, as one scan of the whole text for MARK found them. */
function markedLinesByScan(text: string): string[] {
  const lines: string[] = [];
  MARK.lastIndex = 0;
  for (let found = MARK.exec(text); found !== null; found = MARK.exec(text)) {
    const start = text.lastIndexOf('\n', found.index) + 1;
    const end = text.indexOf('\n', found.index);
    lines.push(text.slice(start, end < 0 ? text.length : end));
    if (end < 0) break;
    MARK.lastIndex = end;
  }
  return lines;
}

const OBFUSCATED_AT = /\s*[[({]\s*(?:at|@|ät)\s*[\])}]\s*/gi;
const OBFUSCATED_DOT = /\s*[[({]\s*(?:dot|punkt|point)\s*[\])}]\s*/gi;

/** deobfuscate as it was: regex scans of the whole text. */
function deobfuscateByScan(text: string): string {
  if (!/[[({]/.test(text)) return text;
  const withAt = /[[({]\s*(?:at|@|ät)\s*[\])}]/i.test(text) ? text.replace(OBFUSCATED_AT, '@') : text;
  if (withAt.indexOf('@') < 0) return withAt;
  return /[[({]\s*(?:dot|punkt|point)\s*[\])}]/i.test(withAt) ? withAt.replace(OBFUSCATED_DOT, '.') : withAt;
}

function randomTexts(seed: number, fragments: readonly string[], count: number): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () =>
    Array.from(
      { length: Math.floor(random() * 12) },
      () => fragments[Math.floor(random() * fragments.length)],
    ).join(''),
  );
}

describe('findCopyright', () => {
  const now = new Date('2026-11-28T00:00:00Z');
  const fragments =
    '©,(c),(C),(x),(,&copy;,&COPY;,&cop,&,copyright,CopyRight,COPYRIGHT,copyrigh,yr,Yr,cop,yright, 2024,2019-2026 ,Acme GmbH, | ,\n,\n, ,All rights reserved,x'.split(
      ',',
    );

  it('finds the marked lines a scan of the whole text for a mark finds', () => {
    for (const text of randomTexts(35, fragments, 20_000)) {
      const lines: string[] = [];
      let lastLineStart = -1;
      for (const start of markStarts(text)) {
        const lineStart = text.lastIndexOf('\n', start) + 1;
        if (lineStart === lastLineStart) continue;
        lastLineStart = lineStart;
        const lineEnd = text.indexOf('\n', start);
        lines.push(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd));
      }
      const expected = markedLinesByScan(text);
      if (lines.join('\u0000') !== expected.join('\u0000'))
        expect({ text, lines }).toEqual({ text, lines: expected });
    }
  });

  it('finds a mark in any case, and only where one is', () => {
    expect(findCopyright('Home\nCoPyRiGhT 2024 Acme GmbH\nImprint', now)).toEqual({
      statement: 'CoPyRiGhT 2024 Acme GmbH',
      year: 2024,
      holder: 'Acme GmbH',
    });
    expect(findCopyright('(C) 2020 Beta Ltd', now)?.holder).toBe('Beta Ltd');
    expect(findCopyright('pyramids, lyrics (see) & more', now)).toBeUndefined();
  });

  it('gives the latest year not past next year, and none when no year is named', () => {
    expect(findCopyright('© 2024 – 2015 Acme', now)?.year).toBe(2024);
    expect(findCopyright('© 2019-2031 Acme 2027', now)?.year).toBe(2027);
    expect(findCopyright('© 2031 Acme', now)).toEqual({ statement: '© 2031 Acme', holder: 'Acme' });
    expect(findCopyright('© Acme 1999 and 2000', now)?.year).toBe(2000);
  });
});

describe('deobfuscate', () => {
  const fragments =
    'info, [at] ,(at),{AT},( ät ),[@], (dot) ,[punkt],{point},(,[,{,),],@,acme,.de, ,\n,at,dot'.split(',');

  it('gives what the regex scans of the whole text gave', () => {
    for (const text of randomTexts(7, fragments, 20_000)) {
      const found = deobfuscate(text);
      const expected = deobfuscateByScan(text);
      if (found !== expected) expect({ text, found }).toEqual({ text, found: expected });
    }
  });

  it('reads addresses written with brackets', () => {
    expect(deobfuscate('info [at] acme [dot] de')).toBe('info@acme.de');
    expect(deobfuscate('(see) info(at)acme.de')).toBe('(see) info@acme.de');
    expect(deobfuscate('no address (dot) here')).toBe('no address (dot) here');
  });
});
