import { lowerName, NAME_SLOTS, nameHashStep, nameSlot, slotName } from '../../../src/html/known-names';
import { seededRandom } from './seeded-random';

/** Known names come from the table, any other lowercased as before: the same strings either way. */
describe('lowerName', () => {
  const hashed = (text: string, from: number, to: number): number => {
    let hash = 0;
    for (let k = from; k < to; k++) hash = nameHashStep(hash, text.charCodeAt(k));
    return hash;
  };
  const check = (text: string, from: number, to: number): void => {
    const expected = text.slice(from, to).toLowerCase();
    expect(lowerName(text, from, to)).toBe(expected);
    expect(lowerName(text, from, to, hashed(text, from, to))).toBe(expected);
  };

  it('gives known names in any case, and names that only look like them', () => {
    for (const name of ['div', 'DIV', 'Script', 'href', 'HTTP-EQUIV', 'xlink:href', 'h1', 'viewBox'])
      check(`<${name}>`, 1, name.length + 1);
    // Kelvin sign and dotted capital I lowercase to other letters: never a table name.
    for (const name of ['lin\u212a', 'L\u0130NK', 'dív', 'di', 'divv', 'd@v', 'h1 ', 'data-x', ''])
      check(` ${name} `, 1, name.length + 1);
  });

  it('matches toLowerCase on random names of letters, digits and signs', () => {
    const alphabet = 'aAdDiIvVhHrReEfF1-:@`[{\u212a\u0130';
    const next = seededRandom(11);
    const wrong: string[] = [];
    for (let t = 0; t < 20_000; t++) {
      let name = '';
      for (let k = 1 + next(5); k > 0; k--) name += alphabet[next(alphabet.length)];
      const text = `<${name}>`;
      const to = name.length + 1;
      const expected = name.toLowerCase();
      if (lowerName(text, 1, to) !== expected || lowerName(text, 1, to, hashed(text, 1, to)) !== expected)
        wrong.push(name);
    }
    expect(wrong).toEqual([]);
  });
});

/** A slot per known name: the same name in any case has one slot, any other name none. */
describe('nameSlot', () => {
  it('gives the slot of a known name in any case, and -1 for any other name', () => {
    const slots = new Set<number>();
    for (const name of ['div', 'p', 'li', 'table', 'href', 'xlink:href', 'data-src']) {
      const slot = nameSlot(name, 0, name.length);
      expect(slot).toBeGreaterThanOrEqual(0);
      expect(slot).toBeLessThan(NAME_SLOTS);
      expect(slotName(slot)).toBe(name);
      expect(nameSlot(`<${name.toUpperCase()}>`, 1, name.length + 1)).toBe(slot);
      slots.add(slot);
    }
    expect(slots.size).toBe(7);
    for (const name of ['my-element', 'keygen', 'divv', 'di', 'lin\u212a', ''])
      expect(nameSlot(name, 0, name.length)).toBe(-1);
  });

  it('agrees with lowerName: a slot exactly when the name is the table string', () => {
    for (const name of ['span', 'SPAN', 'Svg', 'custom-tag', 'viewBox', 'onclick', 'x']) {
      const slot = nameSlot(name, 0, name.length);
      const lower = lowerName(name, 0, name.length);
      if (slot >= 0) expect(slotName(slot)).toBe(lower);
      else expect(lower).toBe(name.toLowerCase());
    }
  });
});
