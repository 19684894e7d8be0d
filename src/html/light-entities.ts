/**
 * The light tree's entity decoding (texts and attribute values): the common named entities, case
 * insensitive, and numeric references, ";" optional. Read as the pattern
 * /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));?/g reads them (at most 7 digits, 6 hex
 * digits or 8 letters, the longest first; an unknown name is kept as written), in a loop from one
 * "&" to the next instead of a replacement callback per entity.
 */
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  middot: '·',
  bull: '•',
};

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 32;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

function character(code: number): string {
  return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
    ? String.fromCodePoint(code)
    : '\ufffd';
}

export function decodeEntities(text: string): string {
  let amp = text.indexOf('&');
  if (amp < 0) return text;
  const n = text.length;
  let out = '';
  let last = 0;
  while (amp >= 0) {
    let end = amp + 1;
    let decoded: string | undefined;
    if (text.charCodeAt(amp + 1) === 35 /* # */) {
      const first = text.charCodeAt(amp + 2);
      if (isDigit(first)) {
        let code = 0;
        for (end = amp + 2; end < n && end < amp + 9 && isDigit(text.charCodeAt(end)); end++)
          code = code * 10 + text.charCodeAt(end) - 48;
        decoded = character(code);
      } else if ((first === 120 || first === 88) && hexValue(text.charCodeAt(amp + 3)) >= 0) {
        let code = 0;
        for (end = amp + 3; end < n && end < amp + 9 && hexValue(text.charCodeAt(end)) >= 0; end++)
          code = code * 16 + hexValue(text.charCodeAt(end));
        decoded = character(code);
      }
    } else {
      while (end < n && end < amp + 9 && isLetter(text.charCodeAt(end))) end++;
      if (end - amp > 2) decoded = NAMED_ENTITIES[text.slice(amp + 1, end).toLowerCase()];
    }
    if (decoded !== undefined) {
      if (text.charCodeAt(end) === 59 /* ; */) end++;
      out += text.slice(last, amp) + decoded;
      last = end;
    }
    amp = text.indexOf('&', end);
  }
  return last === 0 ? text : out + text.slice(last);
}
