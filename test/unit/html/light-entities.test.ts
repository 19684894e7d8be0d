import { decodeEntities } from '../../../src/html/light-entities';
import { seededRandom } from './seeded-random';

/** The regex-and-callback decoding the loop replaced: the reference it must equal. */
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
Object.assign(NAMED, { copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–' });
Object.assign(NAMED, { laquo: '«', raquo: '»', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”' });
Object.assign(NAMED, { middot: '·', bull: '•' });
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z]{2,8}));?/g;
function reference(text: string): string {
  return text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name.toLowerCase()] ?? whole;
    const code = dec ? parseInt(dec, 10) : parseInt(hex as string, 16);
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
      ? String.fromCodePoint(code)
      : '\ufffd';
  });
}

describe('light tree entity decoding', () => {
  it('decodes named and numeric references', () => {
    for (const text of [
      'a &amp; b',
      '&AMP;&Nbsp;x',
      '&copy2024',
      '&#169;&#xA9;&#XA9',
      '&#0;&#xD800;',
      '&ampx; &',
    ])
      expect(decodeEntities(text)).toBe(reference(text));
    expect(decodeEntities('&lt;p&gt; &#128512;')).toBe('<p> 😀');
  });

  it('matches the pattern on random texts of entity pieces', () => {
    const parts = ['&', '#', 'x', 'X', ';', 'amp', 'AmP', 'nbsp', 'copy', 'a', 'f', 'F', 'g', '1', '9', '0'];
    parts.push('12345678', 'fffffff', 'abcdefghi', ' ', 'é', '&', '&#', '&#x');
    const next = seededRandom(5);
    const wrong: string[] = [];
    for (let t = 0; t < 30_000; t++) {
      let text = '';
      for (let k = next(9); k > 0; k--) text += parts[next(parts.length)];
      if (decodeEntities(text) !== reference(text)) wrong.push(text);
    }
    expect(wrong).toEqual([]);
  });
});
