import { HASH } from '../../../src/detection/compiled-literal-scan';
import { anchorEnd } from '../../../src/detection/literal-scanner';
import { markupSlotGrades, markupWindowGrade } from '../../../src/detection/markup-window-grade';
import { MARKUP_WINDOW_GRADES, MARKUP_WINDOWS } from '../../../src/detection/markup-window-prior';

/** A window packed as the scan packs it: the low 8 bits of each character. */
function packed(text: string): number {
  let window = 0;
  for (let i = 0; i < text.length; i++) window = (window << 8) | (text.charCodeAt(i) & 0xff);
  return window;
}

describe('markup window grades', () => {
  it('grades every window of the prior as written, and windows outside it 0', () => {
    const bytes = Buffer.from(MARKUP_WINDOWS, 'base64');
    let k = 0;
    for (const [grade, windows] of MARKUP_WINDOW_GRADES) {
      for (const end = k + windows; k < end; k++)
        expect(markupWindowGrade(bytes.readInt32BE(k * 4))).toBe(grade);
    }
    expect(k * 4).toBe(bytes.length);
    expect(markupWindowGrade(packed('clas'))).toBeGreaterThan(8);
    expect(markupWindowGrade(packed('qzxj'))).toBe(0);
    expect(markupWindowGrade(packed('ichp'))).toBe(0);
  });

  it('anchors a literal at a window the markup seldom has, ahead of rarity among the literals', () => {
    // Every window equally rare among the literals: the markup alone decides.
    const shift = 24;
    const even = new Uint16Array(1 << (32 - shift)).fill(1);
    const end = anchorEnd('richpanel', even, shift);
    expect(markupWindowGrade(packed('richpanel'.slice(end - 4, end)))).toBe(0);
    expect(end).not.toBe(4); // "rich", which the markup repeats
    expect(markupWindowGrade(packed('rich'))).toBeGreaterThan(0);
    // Of windows the markup repeats alike, the one rarer among the literals.
    const unrepeated = [5, 6, 7, 8, 9].filter(
      (e) => markupWindowGrade(packed('richpanel'.slice(e - 4, e))) === 0,
    );
    expect(unrepeated.length).toBeGreaterThan(1);
    const last = unrepeated[unrepeated.length - 1];
    const skewed = new Uint16Array(even);
    skewed[Math.imul(packed('richpanel'.slice(last - 4, last)), HASH) >>> shift] = 0;
    expect(anchorEnd('richpanel', skewed, shift)).toBe(last);
  });

  it("grades a slot by the prior's windows that fall in it, folded as the scan folds them", () => {
    const shift = 13;
    const identity = new Uint16Array(65536);
    for (let code = 0; code < 256; code++) identity[code] = code;
    const slots = markupSlotGrades(identity, shift);
    const slotOf = (window: number): number => Math.imul(window, HASH) >>> shift;
    for (const common of ['clas', 'div>', 'href']) {
      expect(slots[slotOf(packed(common))]).toBeGreaterThanOrEqual(markupWindowGrade(packed(common)));
    }
    // A fold that keeps only letters: "s=\"p" folds to "s\0\0p", which takes that window's grade.
    const letters = new Uint16Array(65536);
    for (let code = 97; code <= 122; code++) letters[code] = code;
    const folded = markupSlotGrades(letters, shift);
    expect(folded[slotOf(packed('s\0\0p'))]).toBeGreaterThanOrEqual(markupWindowGrade(packed('s="p')));
  });

  it("anchors a literal away from a slot the markup's common windows fall in", () => {
    const shift = 24;
    const even = new Uint16Array(1 << (32 - shift)).fill(1);
    const free = anchorEnd('richpanel', even, shift);
    const none = new Uint8Array(1 << (32 - shift));
    expect(anchorEnd('richpanel', even, shift, none)).toBe(free);
    // The chosen window's slot crowded by common windows: another window, of no higher grade.
    const crowded = new Uint8Array(none);
    crowded[Math.imul(packed('richpanel'.slice(free - 4, free)), HASH) >>> shift] = 12;
    const moved = anchorEnd('richpanel', even, shift, crowded);
    expect(moved).not.toBe(free);
    expect(markupWindowGrade(packed('richpanel'.slice(moved - 4, moved)))).toBe(0);
  });
});
