import { parseHtml, TEXT_LIMIT, WHITESPACE_TO_COLLAPSE } from '../../../src/html/light-document';
import { seededRandom } from './seeded-random';

/** The visible text's collapse leaves single spaces alone: the same text as /\s+/ → " ". */
describe('visible text whitespace collapse', () => {
  it('gives what /\\s+/g → " " gives, on random strings of spaces, other whitespace and letters', () => {
    const alphabet = ['a', 'é', ' ', ' ', '\n', '\t', '\r', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u180e'];
    const next = seededRandom(7);
    for (let t = 0; t < 20_000; t++) {
      let text = '';
      for (let k = next(12); k > 0; k--) text += alphabet[next(alphabet.length)];
      expect(text.replace(WHITESPACE_TO_COLLAPSE, ' ')).toBe(text.replace(/\s+/g, ' '));
    }
  });
});

/**
 * Pieces of whitespace alone between tags are counted for the visible-text cap but not joined and
 * collapsed (light-document.ts): the text is the one joining and collapsing them gives.
 */
describe('visible text of pages with pieces of whitespace alone', () => {
  /** The page text as the reading defines it, for pages with no hidden element: every piece joined. */
  function reference(texts: readonly string[]): string {
    const visible: string[] = [];
    let length = 0;
    for (const text of texts) {
      if (length >= TEXT_LIMIT * 2) break;
      visible.push(text);
      length += text.length;
    }
    return visible.join(' ').replace(/\s+/g, ' ').trim().slice(0, TEXT_LIMIT);
  }

  it('is the text of every piece joined, on random pages of words, whitespace and entities', () => {
    const pieces = [
      'word',
      'w',
      ' ',
      '\n    ',
      '\t',
      '\v',
      '\r\n',
      '\u00a0',
      '&nbsp;',
      '&amp;',
      'a b',
      '  x  ',
    ];
    const tags = ['<b>', '</b>', '<span class="c">', '</span>', '<br>', '<div>', '</div>'];
    const next = seededRandom(11);
    for (let t = 0; t < 2_000; t++) {
      let html = '';
      for (let k = next(10); k > 0; k--) html += pieces[next(pieces.length)] + tags[next(tags.length)];
      const doc = parseHtml(html);
      expect(doc.text).toBe(reference(doc.texts));
    }
  });

  it('counts a piece of whitespace alone towards the cap on the text read', () => {
    const doc = parseHtml(`<b>first</b>${' '.repeat(TEXT_LIMIT * 2)}<b>late</b>`);
    expect(doc.text).toBe('first');
  });
});
