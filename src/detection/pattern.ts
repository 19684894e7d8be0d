import { analyseSource, isPlainSource, rewriteForSafety } from './regex-source';
import { literalWindow, WindowedRegex } from './windowed-regex';

/** What finds a regex's match in a text: the regex itself or a search giving the same match. */
export interface RegexSearch {
  exec(text: string): RegExpExecArray | null;
}

/**
 * One compiled fingerprint pattern: `regex\;version:\1\;confidence:50` in the data.
 * Patterns are case-insensitive JavaScript regular expressions; the source is used as written (no
 * escaping of "/": `new RegExp` does not need it, and escaping an already escaped `\/` is what made
 * 109 patterns unmatchable in the reference engine).
 */
export interface Pattern {
  /** The pattern as written in the data, tags included (shown as evidence). */
  readonly source: string;
  readonly regex: RegExp;
  /** The `version` tag template (`\1`, `\1?a:b`), '' when none. */
  readonly version: string;
  readonly confidence: number;
  /** One of these (lowercased) must occur in a text for the pattern to match it; null: always try. */
  readonly literals: string[] | null;
  /** Further sets (lowercased) of which one must occur too: the prefilter requires them all. */
  readonly alsoRequired: readonly string[][];
  /**
   * What finds the regex's match in a page's markup: when every match holds a literal far from its
   * start, a search near that literal's occurrences (`WindowedRegex`), else the regex itself.
   */
  readonly markupSearch: RegexSearch;
}

export interface ParsedTags {
  value: string;
  version: string;
  confidence: number;
}

/** Splits `value\;version:...\;confidence:...` into its parts (values may contain ":"). */
export function parseTags(raw: string): ParsedTags {
  if (!raw.includes('\\;')) return { value: raw, version: '', confidence: 100 };
  const [value, ...tags] = raw.split('\\;');
  let version = '';
  let confidence = 100;
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    if (colon < 0) continue;
    const key = tag.slice(0, colon).trim();
    const val = tag.slice(colon + 1);
    if (key === 'version') version = val;
    else if (key === 'confidence') {
      const parsed = parseInt(val, 10);
      if (Number.isFinite(parsed)) confidence = Math.max(0, Math.min(100, parsed));
    }
  }
  return { value, version, confidence };
}

/** Inline flags such as `(?i)` (seen in the data) are not JavaScript; patterns are case-insensitive anyway. */
const INLINE_FLAGS = /^\(\?[imsx]+\)/;

/**
 * A pattern whose regex and literals may be worked out on first use. Start-up only checks that the
 * source compiles (V8 only parses a regex when it is constructed, which is cheap; plain text needs no
 * check); the literal analysis waits for the first page (which builds the prefilter tables), and the
 * safety rewrite (a parse and a serialisation) is only paid for patterns a page's prefilter lets
 * through, a small minority of the ~15,000.
 */
class CompiledPattern implements Pattern {
  constructor(
    readonly source: string,
    /** The source as a JavaScript regex (tags and inline flags removed). */
    private readonly value: string,
    private compiled: RegExp | null,
    readonly version: string,
    readonly confidence: number,
    /** undefined: found from the value on first read. */
    private found: string[] | null | undefined,
    private further: string[][] | undefined,
    /** The value is known to need no safety rewrite (plain text): its regex is built as it is. */
    private readonly plain = false,
  ) {}

  get regex(): RegExp {
    return (this.compiled ??= this.plain ? new RegExp(this.value, 'i') : safeRegex(this.value));
  }

  private search: RegexSearch | undefined;

  get markupSearch(): RegexSearch {
    if (this.search === undefined) {
      const regex = this.regex;
      // Plain text is its own literal at the start: no window to look in.
      const window = this.plain ? null : literalWindow(regex);
      this.search = window ? new WindowedRegex(regex, window) : regex;
    }
    return this.search;
  }

  get literals(): string[] | null {
    if (this.found === undefined) this.analyse();
    return this.found as string[] | null;
  }

  get alsoRequired(): readonly string[][] {
    if (this.further === undefined) this.analyse();
    return this.further as string[][];
  }

  private analyse(): void {
    const { literals, alsoRequired } = analyseSource(this.value);
    this.found = literals;
    this.further = alsoRequired;
  }
}

/** The safety-rewritten regex of a source known to compile (itself, should the rewrite not compile). */
function safeRegex(value: string): RegExp {
  try {
    return new RegExp(rewriteForSafety(value), 'i');
  } catch {
    return new RegExp(value, 'i');
  }
}

/** Parses the tags and checks the regex compiles (throws with a readable message when not). */
function checkedPattern(raw: string | number, prefiltered: boolean): Pattern {
  const source = String(raw);
  const tags = parseTags(source);
  const value = tags.value.replace(INLINE_FLAGS, '');
  const plain = isPlainSource(value);
  if (!plain) new RegExp(value, 'i'); // the validity check; the safe form is built on first use
  return new CompiledPattern(
    source,
    value,
    null,
    tags.version,
    tags.confidence,
    prefiltered ? undefined : null,
    prefiltered ? undefined : [],
    plain,
  );
}

/**
 * Compiles a raw pattern whose literals feed a prefilter. Throws with a readable message when the
 * regex is invalid; the loader turns that into a warning and skips the pattern.
 */
export function compilePattern(raw: string | number): Pattern {
  return checkedPattern(raw, true);
}

/**
 * A pattern that no literal table reads (header, cookie, meta, DNS and DOM value patterns): no literal
 * analysis ever. Throws like `compilePattern`.
 */
export function compileUnfilteredPattern(raw: string | number): Pattern {
  return checkedPattern(raw, false);
}

/** A pattern of a known regex (no safety rewrite, no literal analysis): prefilter-only patterns. */
export function fixedPattern(source: string, regex: RegExp, literals: string[] | null): Pattern {
  return new CompiledPattern(source, '', regex, '', 100, literals, []);
}

/** `\N?a:b` for each group number N, built once (a match of a versioned pattern reads them all). */
const TERNARIES: RegExp[] = [];

function ternaryOf(index: number): RegExp {
  return (TERNARIES[index] ??= new RegExp(`\\\\${index}\\?([^:]+):(.*)$`));
}

/** `\N` for each group number N. */
const REFERENCES: string[] = [];

function referenceOf(index: number): string {
  return (REFERENCES[index] ??= `\\${index}`);
}

/**
 * The version a match yields: `\N` replaced by group N, `\N?a:b` by a or b depending on whether group N
 * matched. As in the reference engine, groups longer than 10 characters are ignored and one left-over
 * back-reference is removed.
 */
export function resolveVersion(template: string, match: RegExpExecArray): string {
  if (!template) return '';
  let resolved = template;
  for (let index = 0; index < match.length; index++) {
    const group = match[index];
    if (group !== undefined && group.length > 10) continue;
    // A template naming no group N (most name only \1) would go through the steps below unchanged
    // but for the trim: the ternary's look-up and the split are skipped.
    if (!resolved.includes(referenceOf(index))) {
      resolved = resolved.trim();
      continue;
    }
    const ternary = ternaryOf(index).exec(resolved);
    if (ternary) resolved = resolved.replace(ternary[0], group ? ternary[1] : ternary[2]);
    resolved = resolved
      .trim()
      .split(`\\${index}`)
      .join(group ?? '');
  }
  return resolved.replace(/\\\d/, '').trim();
}
