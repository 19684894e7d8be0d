import { requiredTextLiterals, runHoldsAll } from '../../../src/detection/text-literals';

describe('requiredTextLiterals: what every match of a DOM text regex holds', () => {
  it('gives the lowercase ASCII strings a match needs', () => {
    expect(requiredTextLiterals(/(HiSecOS-|HiOS-.{1,250}-)(\d{1,250})/i)[0]).toEqual(
      expect.arrayContaining(['hisecos-', 'hios-']),
    );
    expect(requiredTextLiterals(/^Pleroma$/i)).toEqual([['pleroma']]);
  });

  it('keeps nothing it cannot be sure of', () => {
    // `ς` matches `σ` under the i flag, but lowercases to itself.
    expect(requiredTextLiterals(/ςορ/i)).toEqual([]);
    expect(requiredTextLiterals(/ab/i)).toEqual([]); // too short to look for
    expect(requiredTextLiterals(/(?:)/i)).toEqual([]);
    expect(requiredTextLiterals(/Pleroma/gi)).toEqual([]);
    expect(requiredTextLiterals(/Pleroma/iu)).toEqual([]);
  });
});

describe('runHoldsAll: a run of texts searched without joining it', () => {
  const sets = [['hios-', 'hisecos-']];

  it('finds a string inside one text, across texts and across chunks, in any case', () => {
    const filler = 'x'.repeat(20_000);
    expect(runHoldsAll(['a', 'HiOS-1'], 0, 2, sets)).toBe(true);
    expect(runHoldsAll(['H', 'i', 'O', 'S', '-'], 0, 5, sets)).toBe(true);
    // Every split of the string across the chunk boundary (a chunk closes at 16,384 characters).
    for (let cut = 1; cut < 5; cut++) {
      const texts = [filler.slice(0, 16_384 - cut), 'hIoS-'.slice(0, cut), 'hIoS-'.slice(cut), filler];
      expect([cut, runHoldsAll(texts, 0, texts.length, sets)]).toEqual([cut, true]);
    }
    expect(runHoldsAll([filler, 'HiSec', 'OS-', filler], 0, 4, sets)).toBe(true);
  });

  it('reads only the range asked for, and wants a string of every set', () => {
    expect(runHoldsAll(['HiOS-', 'x'], 1, 2, sets)).toBe(false);
    expect(runHoldsAll(['HiO', 'S-'], 0, 1, sets)).toBe(false);
    expect(runHoldsAll([], 0, 0, sets)).toBe(false);
    expect(runHoldsAll(['HiOS- and Pleroma'], 0, 1, [...sets, ['pleroma']])).toBe(true);
    expect(runHoldsAll(['HiOS- and Plerom'], 0, 1, [...sets, ['pleroma']])).toBe(false);
  });
});
