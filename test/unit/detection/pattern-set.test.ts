import { compilePattern } from '../../../src/detection/pattern';
import { PatternSet } from '../../../src/detection/pattern-set';
import { randomTexts } from '../../helpers/random-texts';

/** A set of the given pattern sources, entry k for source k. */
function setOf(...sources: string[]): PatternSet {
  return new PatternSet(sources.map((source, tech) => ({ tech, pattern: compilePattern(source) })));
}

describe('PatternSet.candidates over several texts', () => {
  it('finds what one scan per text finds, and nothing across two texts', () => {
    const set = setOf('jquery', 'cdn\\.example\\.com', 'bootstrap', 'queryc');
    const texts = ['/js/jquery.min.js', 'https://cdn.example.com/x.js', '/boot', 'strap.js'];
    // "bootstrap" lies only across the third and fourth texts, "queryc" across none.
    expect(set.candidates(texts)).toEqual([0, 1]);
    const one = new Set(texts.flatMap((text) => set.candidates([text])));
    expect(set.candidates(texts)).toEqual([...one].sort((a, b) => a - b));
  });

  it('reads empty texts as no text', () => {
    const set = setOf('jquery');
    expect(set.candidates(['', 'jquery.js', ''])).toEqual([0]);
    expect(set.candidates(['', ''])).toEqual([]);
  });
});

describe('PatternSet further sets with strings too short for the table', () => {
  // Every match holds " amp" or " ⚡"; "⚡" alone is looked for in the texts.
  const amp = '<html[^>]* (?:amp|⚡)[^-]';

  it('keeps the pattern only when the table finds one string or a text holds a short one', () => {
    const set = setOf(amp);
    expect(set.candidates(['<html lang="en"><body>'])).toEqual([]);
    expect(set.candidates(['<HTML AMP lang="en">'])).toEqual([0]);
    expect(set.candidates(['<html ⚡ lang="en">'])).toEqual([0]);
    expect(set.candidates(['<html lang="en">', '<p>⚡</p>'])).toEqual([0]);
  });

  it('counts a short string as found when the texts are not given', () => {
    const set = setOf(amp);
    const scan = set.table.scanFound(['<html lang="en">']);
    expect(set.candidatesIn([scan])).toEqual([0]);
    expect(set.candidatesIn([scan], ['<html lang="en">'])).toEqual([]);
    expect(set.candidatesIn([scan], ['<html lang="en">', '⚡'])).toEqual([0]);
  });

  it('never drops a pattern from a text it matches', () => {
    const set = setOf(amp);
    const regex = new RegExp(amp, 'i');
    const pieces = ['<html', '<HTML', ' ', 'amp', 'AmP', '⚡', '-', 'x', '>', '\u26a0'];
    let matched = 0;
    for (const text of randomTexts(pieces, 3000, 7, 11)) {
      if (!regex.test(text)) continue;
      matched++;
      expect([text, set.candidates([text])]).toEqual([text, [0]]);
    }
    expect(matched).toBeGreaterThan(0);
  });
});
