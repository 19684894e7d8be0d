import { HASH } from '../../../src/detection/compiled-literal-scan';
import { anchorEnd } from '../../../src/detection/literal-scanner';
import { markupWindowGrade } from '../../../src/detection/markup-window-grade';
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
});
