import { compilePattern } from '../../../src/detection/pattern';
import { PatternSet } from '../../../src/detection/pattern-set';

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
