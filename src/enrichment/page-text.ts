/** What push found in a piece it took whole: white space alone (" ", \t, \n, \v, \f, \r)... */
export const BLANK_PIECE = 0;
/**
 * ...or text whose white space, but around it, is single " " only (no other white space, the
 * no-break space included): trimmed, it is the same text, and collapsing its white space changes
 * nothing...
 */
export const PLAIN_PIECE = 1;
/** ...or anything else, or a piece the cap cut or dropped. */
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
 */
export class PageText {
  private readonly parts: string[] = [];
  private taken = 0;
  /** The white-space run the text taken so far ends in, not written yet. */
  private inRun = false;
  private runStartsInline = false;
  private runHasNewline = false;
  private runEndsInline = false;

  constructor(private readonly cap: number) {}

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
    // Single spaces are all most pieces hold: one test says so, and then no run needs collapsing.
    const plain = !OTHER_SPACE.test(inner);
    this.parts.push(
      plain || !INNER_RUN.test(inner)
        ? inner
        : inner.replace(/[ \t\r\f\v]+/g, ' ').replace(/\n(?:[ \t]*\n)+/g, '\n'),
    );
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
    return this.parts.join('');
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
    if (!this.runHasNewline) this.parts.push(' ');
    else if (this.runStartsInline) this.parts.push(this.runEndsInline ? ' \n ' : ' \n');
    else this.parts.push(this.runEndsInline ? '\n ' : '\n');
  }
}

/** " ", \t, \n, \v, \f, \r: the white space the collapse reads (not the no-break space). */
function isRunSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** White space but a single " ": two white-space characters in a row, or one that is not " ". */
const OTHER_SPACE = /\s\s|[^\S ]/;
/** Text between runs needs the collapse only when it holds one of these (each is OTHER_SPACE too). */
const INNER_RUN = /[\t\r\f\v]| {2}|\n ?\n/;
