import { HASH } from './compiled-literal-scan';
import { MARKUP_WINDOW_GRADES, MARKUP_WINDOWS } from './markup-window-prior';

/** Math.imul read once (see literal-scanner.ts). */
const imul = Math.imul;

/**
 * The windows of markup-window-prior.ts by open addressing on their hash (0 where empty: no window
 * there is 0), and each one's grade; decoded on first use.
 */
let keys = new Int32Array(0);
let grades = new Uint8Array(0);
let shift = 32;

/**
 * How often page markup repeats a 4-character window, as a grade: about the base-2 logarithm of its
 * count in the corpus pages (markup-window-prior.ts), 0 for a window not among those most repeated.
 * A literal anchored at a window the markup repeats ("rich" of "richpanel", "unit" of "unito") is
 * compared at every occurrence of it; anchored at a window the markup seldom has, it is compared
 * about only where it occurs. Rarity among the literals alone cannot tell: most of a literal's
 * windows are each in that literal only.
 */
export function markupWindowGrade(window: number): number {
  if (keys.length === 0) decode();
  const mask = keys.length - 1;
  for (let at = imul(window, HASH) >>> shift; keys[at] !== 0; at = (at + 1) & mask) {
    if (keys[at] === window) return grades[at];
  }
  return 0;
}

function decode(): void {
  const bytes = Buffer.from(MARKUP_WINDOWS, 'base64');
  // At most a third full, so that a probe for an absent window ends within a few slots.
  const bits = Math.ceil(Math.log2((bytes.length >>> 2) * 3 + 1));
  keys = new Int32Array(1 << bits);
  grades = new Uint8Array(1 << bits);
  shift = 32 - bits;
  const mask = keys.length - 1;
  let k = 0;
  for (const [grade, windows] of MARKUP_WINDOW_GRADES) {
    for (const end = k + windows; k < end; k++) {
      const window = bytes.readInt32BE(k * 4);
      let at = imul(window, HASH) >>> shift;
      while (keys[at] !== 0) at = (at + 1) & mask;
      keys[at] = window;
      grades[at] = grade;
    }
  }
}

/**
 * Per slot of a table whose slot is the top (32 - shift) bits of a window's HASH product: the
 * highest grade of the prior's windows that fall there, each character folded by `fold` as the scan
 * folds it. A literal anchored in a slot the markup's common windows fall in costs a probe hit at
 * each of their occurrences, though its own window is rare.
 */
export function markupSlotGrades(fold: Uint16Array, shift: number): Uint8Array {
  if (keys.length === 0) decode();
  const slots = new Uint8Array(2 ** (32 - shift));
  for (let at = 0; at < keys.length; at++) {
    const window = keys[at];
    if (window === 0) continue;
    const folded =
      (foldedByte(fold, window >>> 24) << 24) |
      (foldedByte(fold, window >>> 16) << 16) |
      (foldedByte(fold, window >>> 8) << 8) |
      foldedByte(fold, window);
    const slot = imul(folded, HASH) >>> shift;
    if (grades[at] > slots[slot]) slots[slot] = grades[at];
  }
  return slots;
}

/** What the scan's window takes of the character whose low 8 bits are those of `byte`. */
function foldedByte(fold: Uint16Array, byte: number): number {
  return fold[byte & 0xff] & 0xff;
}
