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
 * collapses the whole text, but run by run: a run of that white space becomes " " when it holds no
 * "\n", else "\n" with a " " before it when the run starts with another character and one after it
 * when it ends with another. The runs between pieces are collapsed while the pieces arrive (those
 * that are white space alone, indentation between tags and the "\n" of each block, are never
 * copied); the text between them is taken as it is and joined, and the few runs inside it that the
 * collapse changes are found in the joined text with indexOf (many times faster than irregexp) and
 * collapsed there.
 */
export class PageText {
  /**
   * The text taken so far, its runs between pieces collapsed. Appended to piece by piece: V8 keeps
   * the appended strings as a rope and copies them once, into one string, when the text is first
   * read, which costs less than keeping them in an array and joining it.
   */
  private joined = '';
  private taken = 0;
  /**
   * Whether a piece taken may hold a run the collapse changes (all may, unless the pieces are
   * tested as they arrive).
   */
  private mayHoldRuns: boolean;
  /** The white-space run the text taken so far ends in, not written yet. */
  private inRun = false;
  private runStartsInline = false;
  private runHasNewline = false;
  private runEndsInline = false;

  constructor(
    private readonly cap: number,
    private readonly tellsPlain = true,
  ) {
    this.mayHoldRuns = !tellsPlain;
  }

  /**
   * Takes a piece of text, as far as the cap allows, and says what it found in it (the page document
   * reads its segments' white space from that, not from one more scan). Unless asked to tell plain
   * pieces (`tellsPlain`, for a reader that keeps segments), a piece holding text is OTHER_PIECE.
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
    this.joined += inner;
    if (to < n) this.extendRun(source, to, n);
    if (!this.tellsPlain) return OTHER_PIECE;
    // Single spaces are all most pieces hold: one test says so, and then no run needs collapsing.
    const plain = !OTHER_SPACE.test(inner);
    if (!plain) this.mayHoldRuns = true;
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
    return this.mayHoldRuns ? withRunsCollapsed(this.joined) : this.joined;
  }

  /** The run goes on with piece[from, to), white space only. */
  private extendRun(piece: string, from: number, to: number): void {
    if (!this.inRun) {
      this.inRun = true;
      this.runStartsInline = piece.charCodeAt(from) !== 10;
      this.runHasNewline = false;
    }
    if (!this.runHasNewline) this.runHasNewline = holdsNewline(piece, from, to);
    this.runEndsInline = piece.charCodeAt(to - 1) !== 10;
  }

  private writeRun(): void {
    if (!this.inRun) return;
    this.inRun = false;
    this.joined += collapsedRun(this.runStartsInline, this.runHasNewline, this.runEndsInline);
  }
}

/**
 * A run of white space collapsed: " " without a "\n", else "\n" with a " " before it when the run
 * starts with another character and one after it when it ends with another.
 */
function collapsedRun(startsInline: boolean, hasNewline: boolean, endsInline: boolean): string {
  if (!hasNewline) return ' ';
  if (startsInline) return endsInline ? ' \n ' : ' \n';
  return endsInline ? '\n ' : '\n';
}

/** Whether text[from, to) holds a "\n". */
function holdsNewline(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) return true;
  return false;
}

/**
 * What a run the collapse changes holds, spelt out as the strings indexOf looks for: a run holds one
 * of them exactly when it is other than " ", "\n", " \n", "\n " and " \n ", the runs written
 * between pieces.
 */
const CHANGED_RUN_STRINGS = ['\t', '\r', '\f', '\v', '  ', '\n\n', '\n \n'];

/**
 * The joined text with each run holding a CHANGED_RUN_STRINGS match collapsed. Such a run lies in
 * a piece: a piece starts and ends in other than white space, and the runs between pieces are
 * written collapsed, so every run of the text is either one of those or lies within one piece.
 */
function withRunsCollapsed(text: string): string {
  // Past this many runs (indented code in a <pre>, a text of tabs), one regex pass over the text
  // costs less than rewriting each run.
  const most = text.length >> 6;
  const runStarts: number[] = [];
  for (const needle of CHANGED_RUN_STRINGS) {
    for (let at = text.indexOf(needle); at >= 0;) {
      let start = at;
      while (start > 0 && isRunSpace(text.charCodeAt(start - 1))) start--;
      runStarts.push(start);
      if (runStarts.length > most) return collapsed(text);
      at = text.indexOf(needle, runEnd(text, at + needle.length));
    }
  }
  if (runStarts.length === 0) return text;
  runStarts.sort((a, b) => a - b);
  const out: string[] = [];
  let copied = 0;
  for (const start of runStarts) {
    // A run holding several of the strings was found once for each.
    if (start < copied) continue;
    const end = runEnd(text, start);
    out.push(
      text.slice(copied, start),
      collapsedRun(
        text.charCodeAt(start) !== 10,
        holdsNewline(text, start, end),
        text.charCodeAt(end - 1) !== 10,
      ),
    );
    copied = end;
  }
  out.push(text.slice(copied));
  return out.join('');
}

/**
 * The text's runs collapsed by regex: what the collapse of the whole text gives, as the runs written
 * between pieces are left as they are. Without replacing each single " " by itself.
 */
function collapsed(text: string): string {
  return text.replace(/[ \t\r\f\v]{2,}|[\t\r\f\v]/g, ' ').replace(/\n(?:[ \t]*\n)+/g, '\n');
}

/** Where the run of white space going on at `at` ends. */
function runEnd(text: string, at: number): number {
  let end = at;
  while (end < text.length && isRunSpace(text.charCodeAt(end))) end++;
  return end;
}

/** " ", \t, \n, \v, \f, \r: the white space the collapse reads (not the no-break space). */
function isRunSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** White space but a single " ": two white-space characters in a row, or one that is not " ". */
const OTHER_SPACE = /\s\s|[^\S ]/;
