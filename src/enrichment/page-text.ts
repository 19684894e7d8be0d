/** What push found in a piece it took whole: white space alone (" ", \t, \n, \v, \f, \r)... */
export const BLANK_PIECE = 0;
/**
 * ...or text whose white space, but around it, is single " " only (no other white space, the
 * no-break space included): trimmed, it is the same text, and collapsing its white space changes
 * nothing...
 */
export const PLAIN_PIECE = 1;
/**
 * ...or anything else, or a piece the cap cut or dropped (and every piece holding text, when the
 * text is not asked to tell plain pieces).
 */
export const OTHER_PIECE = 2;

/**
 * A page's visible text as the page document reads it, capped at `cap` characters as written, with
 * its white space collapsed as
 *
 *   text.replace(/[ \t\r\f\v]+/g, ' ').replace(/\n(?:[ \t]*\n)+/g, '\n')
 *
 * collapses the whole text, but run by run while the pieces arrive: a run of that white space
 * becomes " " when it holds no "\n", else "\n" with a " " before it when the run starts with another
 * character and one after it when it ends with another. The pieces that are white space alone
 * (indentation between tags, the "\n" of each block) are never copied, and the text between runs is
 * kept as it is unless it holds a run to collapse.
 *
 * Whether a piece holds such a run, or anything but single spaces, takes a regex over it. Unless
 * asked to tell plain pieces (`tellsPlain`, for a reader that keeps segments), no piece is tested
 * as it arrives: the text taken is joined, the few runs to collapse are found in it with indexOf
 * (many times faster than irregexp), and only the pieces holding one are collapsed.
 */
export class PageText {
  private readonly parts: string[] = [];
  /** Where each part starts in the parts joined (kept when the pieces are not tested as they come). */
  private readonly partStarts: number[] = [];
  private written = 0;
  private taken = 0;
  /** The white-space run the text taken so far ends in, not written yet. */
  private inRun = false;
  private runStartsInline = false;
  private runHasNewline = false;
  private runEndsInline = false;

  constructor(
    private readonly cap: number,
    private readonly tellsPlain = true,
  ) {}

  /**
   * Takes a piece of text, as far as the cap allows, and says what it found in it (the page document
   * reads its segments' white space from that, not from one more scan).
   */
  push(chunk: string): number {
    return this.pushRange(chunk, 0, chunk.length);
  }

  /**
   * push(source.slice(start, end)) without that copy: white space around the text (indentation
   * between tags, a piece that is nothing else) is read in place, and only the text is copied.
   */
  pushRange(source: string, start: number, end: number): number {
    if (this.taken >= this.cap) return OTHER_PIECE;
    const whole = end - start <= this.cap - this.taken;
    const n = whole ? end : start + (this.cap - this.taken);
    this.taken += n - start;
    let from = start;
    while (from < n && isRunSpace(source.charCodeAt(from))) from++;
    if (from > start) this.extendRun(source, start, from);
    if (from === n) return whole ? BLANK_PIECE : OTHER_PIECE;
    let to = n;
    while (isRunSpace(source.charCodeAt(to - 1))) to--;
    this.writeRun();
    const inner = from === 0 && to === source.length ? source : source.slice(from, to);
    if (!this.tellsPlain) {
      this.write(inner);
      if (to < n) this.extendRun(source, to, n);
      return OTHER_PIECE;
    }
    // Single spaces are all most pieces hold: one test says so, and then no run needs collapsing.
    const plain = !OTHER_SPACE.test(inner);
    this.parts.push(plain || !INNER_RUN.test(inner) ? inner : collapsed(inner));
    if (to < n) this.extendRun(source, to, n);
    return plain && whole ? PLAIN_PIECE : OTHER_PIECE;
  }

  /** Takes a "\n" (what push("\n") does, without reading a string). */
  pushNewline(): void {
    if (this.taken >= this.cap) return;
    this.taken++;
    if (!this.inRun) {
      this.inRun = true;
      this.runStartsInline = false;
    }
    this.runHasNewline = true;
    this.runEndsInline = false;
  }

  /** The text taken, collapsed. */
  toString(): string {
    this.writeRun();
    const parts = this.parts;
    const joined = parts.join('');
    if (this.tellsPlain) return joined;
    const starts = this.partStarts;
    const toCollapse = partsWithInnerRuns(joined, starts);
    if (toCollapse.length === 0) return joined;
    // The few pieces collapsed, and what lies between them cut out of the joined text whole.
    const out: string[] = [];
    let copied = 0;
    for (const k of toCollapse) {
      out.push(joined.slice(copied, starts[k]), collapsed(parts[k]));
      copied = starts[k] + parts[k].length;
    }
    out.push(joined.slice(copied));
    return out.join('');
  }

  /** A part as it comes, its start kept (untested pieces only). */
  private write(part: string): void {
    this.partStarts.push(this.written);
    this.written += part.length;
    this.parts.push(part);
  }

  /** The run goes on with piece[from, to), white space only. */
  private extendRun(piece: string, from: number, to: number): void {
    if (!this.inRun) {
      this.inRun = true;
      this.runStartsInline = piece.charCodeAt(from) !== 10;
      this.runHasNewline = false;
    }
    if (!this.runHasNewline) {
      for (let k = from; k < to; k++) {
        if (piece.charCodeAt(k) === 10) {
          this.runHasNewline = true;
          break;
        }
      }
    }
    this.runEndsInline = piece.charCodeAt(to - 1) !== 10;
  }

  private writeRun(): void {
    if (!this.inRun) return;
    this.inRun = false;
    let run: string;
    if (!this.runHasNewline) run = ' ';
    else if (this.runStartsInline) run = this.runEndsInline ? ' \n ' : ' \n';
    else run = this.runEndsInline ? '\n ' : '\n';
    if (this.tellsPlain) this.parts.push(run);
    else this.write(run);
  }
}

/**
 * A piece's own runs collapsed (pieces hold no white space at either end): what
 * replace(/[ \t\r\f\v]+/g, ' ') does, without replacing each single " " by itself.
 */
function collapsed(inner: string): string {
  return inner.replace(/[ \t\r\f\v]{2,}|[\t\r\f\v]/g, ' ').replace(/\n(?:[ \t]*\n)+/g, '\n');
}

/**
 * What INNER_RUN matches, spelt out as the strings indexOf looks for. None of them can start or end
 * in a written run or span two parts: a piece starts and ends in other than white space, and a
 * written run is " ", "\n" or one "\n" with a " " before it, after it or both.
 */
const INNER_RUN_STRINGS = ['\t', '\r', '\f', '\v', '  ', '\n\n', '\n \n'];

/**
 * The indexes of the parts (of `joined`, which start at `starts`) holding an INNER_RUN match, in
 * ascending order.
 */
function partsWithInnerRuns(joined: string, starts: readonly number[]): number[] {
  const found: number[] = [];
  for (const run of INNER_RUN_STRINGS) {
    for (let at = joined.indexOf(run); at >= 0;) {
      const part = partAt(starts, at);
      found.push(part);
      // The part is collapsed whole: no need to look for more of its runs.
      at = part + 1 < starts.length ? joined.indexOf(run, starts[part + 1]) : -1;
    }
  }
  if (found.length < 2) return found;
  found.sort((a, b) => a - b);
  return found.filter((part, k) => k === 0 || found[k - 1] !== part);
}

/** The index of the part that holds offset `at` (`starts` ascending, starting at 0). */
function partAt(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** " ", \t, \n, \v, \f, \r: the white space the collapse reads (not the no-break space). */
function isRunSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** White space but a single " ": two white-space characters in a row, or one that is not " ". */
const OTHER_SPACE = /\s\s|[^\S ]/;
/** Text between runs needs the collapse only when it holds one of these (each is OTHER_SPACE too). */
const INNER_RUN = /[\t\r\f\v]| {2}|\n ?\n/;
