import { rawTextEndAt } from '../../../src/html/light-document';
import { seededRandom } from './seeded-random';

/** The patterns the search replaced: the reference it must equal. */
function reference(html: string, tag: string, from: number, slashEnds: boolean): number {
  const pattern = new RegExp(`</${tag}[\\s${slashEnds ? '/' : ''}>]`, 'gi');
  pattern.lastIndex = from;
  const found = pattern.exec(html);
  return found ? found.index : -1;
}

describe('raw-text end tag search', () => {
  it('finds the end tag in any ASCII case, before a space, ">" or (for the tree) "/"', () => {
    const html = '<script>a</scrip></scriptx></SCRIPT/></sCrIpT\u00a0></script>';
    for (const slashEnds of [true, false])
      for (let from = 0; from < html.length; from++)
        expect(rawTextEndAt(html, 'script', from, slashEnds)).toBe(
          reference(html, 'script', from, slashEnds),
        );
  });

  it('takes every character /\\s/ matches after the name, and no other', () => {
    const wrong: number[] = [];
    const pattern = /<\/style[\s>]/i;
    for (let code = 0; code < 0x10000; code++) {
      const html = `x</style${String.fromCharCode(code)}`;
      if (rawTextEndAt(html, 'style', 0, false) !== (pattern.test(html) ? 1 : -1)) wrong.push(code);
    }
    expect(wrong).toEqual([]);
  });

  it('does not fold non-ASCII letters into the name', () => {
    // U+017F (long s) and U+212A (Kelvin sign) upper-case to ASCII letters; a non-unicode /i
    // pattern does not match them, and neither does the search.
    for (const html of ['</\u017fcript>', '</xmp\u212a>', '</Xmp>', '</xMP ']) {
      expect(rawTextEndAt(html, 'script', 0, true)).toBe(reference(html, 'script', 0, true));
      expect(rawTextEndAt(html, 'xmp', 0, true)).toBe(reference(html, 'xmp', 0, true));
    }
  });

  it('matches the patterns on random markup', () => {
    const parts = ['</', '<', '/', '>', ' ', '\n', '\t', '\u00a0', '\u2028', 'script', 'SCRIPT', 'Script'];
    parts.push('scrip', 'title', 'TITLE', 'textarea', 'x', 'é', '\u017f', 'S', 's', 'k');
    const tags = ['script', 'style', 'title', 'textarea', 'xmp', 'noscript'];
    const next = seededRandom(11);
    const wrong: string[] = [];
    for (let t = 0; t < 20_000; t++) {
      let html = '';
      const count = 1 + next(12);
      for (let k = 0; k < count; k++) html += parts[next(parts.length)];
      const tag = tags[next(tags.length)];
      const from = next(html.length + 1);
      const slashEnds = next(2) === 0;
      if (rawTextEndAt(html, tag, from, slashEnds) !== reference(html, tag, from, slashEnds))
        wrong.push(JSON.stringify([html, tag, from, slashEnds]));
    }
    expect(wrong).toEqual([]);
  });
});
