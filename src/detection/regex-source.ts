/**
 * A small parser for the JavaScript regular-expression sources of the fingerprints (non-unicode mode).
 * It serves two purposes:
 *  - prefiltering: `requiredLiterals` finds strings of which one must occur (case-insensitively) in any
 *    text the pattern matches, so a one-pass multi-literal scan can rule out most patterns per page;
 *  - safety: `rewriteForSafety` bounds unbounded quantifiers (as the reference engine does, with 250)
 *    and turns `<[^>]*` into the equivalent but linear `<[^<>]*`, the shape behind most of the
 *    quadratic backtracking on pages with many unclosed tags.
 * The parser keeps every atom's raw text, so a rewritten source differs from the original only where a
 * rewrite applies. Anything it does not understand makes it give up (the caller then keeps the source
 * as it is and runs the pattern without a prefilter).
 */

export type RegexNode =
  | { t: 'char'; raw: string; c: string }
  | { t: 'set'; raw: string; chars: string[] | null }
  | { t: 'assert'; raw: string }
  | { t: 'backref'; raw: string }
  | { t: 'group'; open: string; body: RegexNode; zeroWidth: boolean }
  | { t: 'rep'; body: RegexNode; min: number; max: number; lazy: boolean; raw: string }
  | { t: 'seq'; items: RegexNode[] }
  | { t: 'alt'; alts: RegexNode[] };

type Node = RegexNode;

/** Quantifier bound the rewrite gives `*`, `+` and `{n,}`: the one the reference engine uses. */
export const QUANTIFIER_CAP = 250;

const MAX_EXACT = 32;
const MIN_LITERAL = 3;
/** How far a `{n,m}` quantifier and a `(?<name>` group opening may reach (as the parser always did). */
const MAX_QUANTIFIER_LENGTH = 24;
const MAX_GROUP_OPEN_LENGTH = 64;

// Character codes: the parser compares codes, which allocates nothing (it runs on every fingerprint at
// start-up, much of it before the JIT has warmed up).
const BANG = 33;
const DOLLAR = 36;
const OPEN = 40;
const CLOSE = 41;
const STAR = 42;
const PLUS = 43;
const COMMA = 44;
const DASH = 45;
const DOT = 46;
const COLON = 58;
const LT = 60;
const EQ = 61;
const GT = 62;
const QUESTION = 63;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const CARET = 94;
const OPEN_BRACE = 123;
const PIPE = 124;
const CLOSE_BRACE = 125;

/** Lowercase of each ASCII character: the per-character nodes share these strings. */
const ASCII_LOWER = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code).toLowerCase());

function lower(ch: string, code: number): string {
  return code < 128 ? ASCII_LOWER[code] : ch.toLowerCase();
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isHex(code: number): boolean {
  return isDigit(code) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** [A-Za-z_$]: the first character of a group name. */
function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === DOLLAR;
}

/** [\w$]: the other characters of a group name. */
function isNamePart(code: number): boolean {
  return isNameStart(code) || isDigit(code);
}

/** Escapes that are not one plain character inside [...]: [dDwWsSbBcxu0-9]. */
function isClassEscape(code: number): boolean {
  return 'dDwWsSbBcxu'.includes(String.fromCharCode(code)) || isDigit(code);
}

/** What `\n`, `\r`, `\t`, `\f`, `\v` and `\0` stand for, by the escaped character's code. */
function controlEscape(code: number): string | null {
  switch (code) {
    case 110:
      return '\n';
    case 114:
      return '\r';
    case 116:
      return '\t';
    case 102:
      return '\f';
    case 118:
      return '\v';
    case 48:
      return '\0';
    default:
      return null;
  }
}

/** `\X` with X one of these is a plain X that needs no parse: /.\-_:;=@#%&'"~`!,< and >. */
function isEscapedPunctuation(code: number): boolean {
  switch (code) {
    case 47: // /
    case DOT:
    case DASH:
    case 95: // _
    case COLON:
    case 59: // ;
    case EQ:
    case 64: // @
    case 35: // #
    case 37: // %
    case 38: // &
    case 39: // '
    case 34: // "
    case 126: // ~
    case 96: // `
    case BANG:
    case COMMA:
    case LT:
    case GT:
      return true;
    default:
      return false;
  }
}

/** Characters with a meaning of their own in a regex: [](){}*+?|^$.\ */
function isSpecial(code: number): boolean {
  switch (code) {
    case OPEN_BRACKET:
    case CLOSE_BRACKET:
    case OPEN:
    case CLOSE:
    case OPEN_BRACE:
    case CLOSE_BRACE:
    case STAR:
    case PLUS:
    case QUESTION:
    case PIPE:
    case CARET:
    case DOLLAR:
    case DOT:
    case BACKSLASH:
      return true;
    default:
      return false;
  }
}

class Parser {
  private i = 0;
  /** Whether `rewriteForSafety` would change anything: an unbounded quantifier or a `<[^>]` repeat. */
  needsRewrite = false;
  /** The parsed tree, once `parse` succeeded. */
  root: Node = { t: 'seq', items: [] };
  constructor(private readonly src: string) {}

  private code(at: number): number {
    return at < this.src.length ? this.src.charCodeAt(at) : -1;
  }

  parse(): Node {
    const node = this.alternation();
    if (this.i !== this.src.length) throw new Error('unbalanced )');
    return node;
  }

  private alternation(): Node {
    const first = this.sequence();
    if (this.code(this.i) !== PIPE) return first;
    const alts: Node[] = [first];
    while (this.code(this.i) === PIPE) {
      this.i++;
      alts.push(this.sequence());
    }
    return { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    const s = this.src;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === PIPE || c === CLOSE) break;
      let atom = this.atom();
      const start = this.i;
      const q = this.quantifier();
      if (q) {
        if (atom.t === 'assert' || (atom.t === 'group' && atom.zeroWidth))
          throw new Error('quantified assertion');
        // Mirrors `serialise`: what it would bound, or turn from [^>] into [^<>] after a "<".
        if (q.max === Infinity && q.min <= QUANTIFIER_CAP) this.needsRewrite = true;
        const prev = items.length ? items[items.length - 1] : undefined;
        if (prev?.t === 'char' && prev.c.endsWith('<') && atom.t === 'set' && atom.raw === '[^>]')
          this.needsRewrite = true;
        atom = { t: 'rep', body: atom, min: q.min, max: q.max, lazy: q.lazy, raw: s.slice(start, this.i) };
      }
      const last = items.length ? items[items.length - 1] : undefined;
      if (!q && atom.t === 'char' && last?.t === 'char') {
        // A run of unquantified characters is one node: fewer objects for the analysis to walk and
        // allocate for (a quantifier applies to the last character alone, so that one stays apart).
        last.raw += atom.raw;
        last.c += atom.c;
      } else {
        items.push(atom);
      }
    }
    return { t: 'seq', items };
  }

  private quantifier(): { min: number; max: number; lazy: boolean } | null {
    const s = this.src;
    let min: number;
    let max: number;
    const c = this.code(this.i);
    if (c === STAR || c === PLUS || c === QUESTION) {
      this.i++;
      min = c === PLUS ? 1 : 0;
      max = c === QUESTION ? 1 : Infinity;
    } else if (c === OPEN_BRACE) {
      // {n}, {n,} or {n,m}; anything else (a lone "{") is a literal in non-unicode mode.
      const start = this.i;
      let at = start + 1;
      while (isDigit(this.code(at))) at++;
      if (at === start + 1) return null;
      min = Number(s.slice(start + 1, at));
      if (this.code(at) === COMMA) {
        const from = ++at;
        while (isDigit(this.code(at))) at++;
        max = at === from ? Infinity : Number(s.slice(from, at));
      } else {
        max = min;
      }
      if (this.code(at) !== CLOSE_BRACE || at + 1 - start > MAX_QUANTIFIER_LENGTH) return null;
      this.i = at + 1;
    } else {
      return null;
    }
    const lazy = this.code(this.i) === QUESTION;
    if (lazy) this.i++;
    return { min, max, lazy };
  }

  private atom(): Node {
    const s = this.src;
    const code = s.charCodeAt(this.i);
    if (code === OPEN) return this.group();
    if (code === OPEN_BRACKET) return this.charClass();
    if (code === BACKSLASH) return this.escape();
    if (code === STAR || code === PLUS || code === QUESTION) throw new Error('nothing to repeat');
    const c = s[this.i++];
    if (code === DOT) return { t: 'set', raw: c, chars: null };
    if (code === CARET || code === DOLLAR) return { t: 'assert', raw: c };
    return { t: 'char', raw: c, c: lower(c, code) };
  }

  private group(): Node {
    const s = this.src;
    const start = this.i;
    let open = '(';
    let zeroWidth = false;
    if (this.code(start + 1) === QUESTION) {
      const kind = this.code(start + 2);
      let end = -1;
      if (kind === COLON || kind === EQ || kind === BANG) end = start + 3;
      else if (kind === LT) {
        const next = this.code(start + 3);
        if (next === EQ || next === BANG) end = start + 4;
        else if (isNameStart(next)) {
          let at = start + 4;
          while (isNamePart(this.code(at))) at++;
          if (this.code(at) === GT && at + 1 - start <= MAX_GROUP_OPEN_LENGTH) end = at + 1;
        }
      }
      if (end < 0) throw new Error('unsupported group');
      open = s.slice(start, end);
      zeroWidth = open === '(?=' || open === '(?!' || open === '(?<=' || open === '(?<!';
    }
    this.i += open.length;
    const body = this.alternation();
    if (this.code(this.i) !== CLOSE) throw new Error('unterminated group');
    this.i++;
    return { t: 'group', open, body, zeroWidth };
  }

  private charClass(): Node {
    const s = this.src;
    const start = this.i;
    this.i++;
    const negated = this.code(this.i) === CARET;
    if (negated) this.i++;
    const chars: string[] = [];
    let simple = !negated;
    while (this.i < s.length && s.charCodeAt(this.i) !== CLOSE_BRACKET) {
      const code = s.charCodeAt(this.i);
      if (code === BACKSLASH) {
        const next = this.code(this.i + 1);
        this.i += 2;
        if (isClassEscape(next)) simple = false;
        else chars.push(next < 0 ? '' : s[this.i - 1]);
        if (next === 120)
          this.i += 2; // \xHH
        else if (next === 117)
          this.i += 4; // \uHHHH
        else if (next === 99) this.i += 1; // \cX
        if (this.code(this.i) === DASH && this.code(this.i + 1) !== CLOSE_BRACKET) simple = false;
      } else {
        if (
          this.code(this.i + 1) === DASH &&
          this.i + 2 < s.length &&
          s.charCodeAt(this.i + 2) !== CLOSE_BRACKET
        )
          simple = false;
        chars.push(s[this.i]);
        this.i++;
      }
    }
    if (this.code(this.i) !== CLOSE_BRACKET) throw new Error('unterminated class');
    this.i++;
    const raw = s.slice(start, this.i);
    if (!simple || chars.length === 0) return { t: 'set', raw, chars: null };
    const lowered: string[] = [];
    for (const ch of chars) {
      const low = ch.length === 1 ? lower(ch, ch.charCodeAt(0)) : ch.toLowerCase();
      if (!lowered.includes(low)) lowered.push(low);
    }
    return { t: 'set', raw, chars: lowered };
  }

  private escape(): Node {
    const s = this.src;
    const start = this.i;
    if (start + 1 >= s.length) throw new Error('trailing backslash');
    const next = s.charCodeAt(start + 1);
    this.i += 2;
    const letter = s[start + 1];
    // Classes (\d, \p{...}, \k<name> too: none of them is one known character).
    if ('dDwWsSckpP'.includes(letter)) return { t: 'set', raw: s.slice(start, this.i), chars: null };
    if (letter === 'b' || letter === 'B') return { t: 'assert', raw: s.slice(start, this.i) };
    if (letter === 'x' || letter === 'u') {
      const len = letter === 'x' ? 2 : 4;
      let hex = this.i + len <= s.length;
      for (let k = 0; hex && k < len; k++) hex = isHex(s.charCodeAt(this.i + k));
      if (!hex) return { t: 'char', raw: s.slice(start, this.i), c: letter };
      const c = String.fromCharCode(parseInt(s.slice(this.i, this.i + len), 16)).toLowerCase();
      this.i += len;
      return { t: 'char', raw: s.slice(start, this.i), c };
    }
    if (next >= 49 && next <= 57) {
      while (isDigit(this.code(this.i))) this.i++;
      return { t: 'backref', raw: s.slice(start, this.i) };
    }
    const raw = s.slice(start, this.i);
    return { t: 'char', raw, c: controlEscape(next) ?? lower(s[start + 1], next) };
  }
}

/**
 * The tree of a source, null when the parser does not understand it. A `char` node is a run of
 * plain characters (`c` lowercased), `set` one character of a class, `assert` and zero-width
 * groups consume nothing.
 */
export function parseRegexSource(source: string): RegexNode | null {
  return parse(source)?.root ?? null;
}

/** Parses a source; null when the parser does not understand it. */
function parse(source: string): Parser | null {
  const parser = new Parser(source);
  try {
    parser.root = parser.parse();
    return parser;
  } catch {
    return null;
  }
}

interface Info {
  /** The node matches exactly one of these strings (lowercased), when finite and small. */
  exact: string[] | null;
  /** One of these strings occurs in anything the node matches. */
  required: string[] | null;
}

function score(set: string[] | null): number {
  if (!set || set.length === 0) return -1;
  let min = Infinity;
  for (const s of set) min = Math.min(min, s.length);
  return min * 64 - set.length;
}

function better(a: string[] | null, b: string[] | null): string[] | null {
  return score(b) > score(a) ? b : a;
}

/** Each of `current` followed by each of `exact`, when that is known and few enough strings. */
function appendExact(current: string[], exact: string[] | null): string[] | null {
  if (!exact || exact.length * current.length > MAX_EXACT) return null;
  const next: string[] = [];
  for (const a of current) for (const b of exact) next.push(a + b);
  return [...new Set(next)];
}

function analyse(node: Node): Info {
  switch (node.t) {
    case 'char':
      return { exact: [node.c], required: null };
    case 'set':
      return { exact: node.chars && node.chars.length <= 4 ? node.chars : null, required: null };
    case 'assert':
      return { exact: [''], required: null };
    case 'backref':
      return { exact: null, required: null };
    case 'group':
      return node.zeroWidth ? { exact: [''], required: null } : analyse(node.body);
    case 'rep': {
      if (node.min === 0) return { exact: null, required: null };
      const inner = analyse(node.body);
      const exact = node.min === 1 && node.max === 1 ? inner.exact : null;
      return { exact, required: better(inner.exact, inner.required) };
    }
    case 'alt': {
      const infos = node.alts.map(analyse);
      let exact: string[] | null = [];
      let required: string[] | null = [];
      for (const info of infos) {
        if (exact && info.exact) exact.push(...info.exact);
        else exact = null;
        const best = better(info.exact, info.required);
        if (required && best && !best.includes('')) required.push(...best);
        else required = null;
      }
      if (exact && exact.length > MAX_EXACT) exact = null;
      return {
        exact: exact ? [...new Set(exact)] : null,
        required: required ? [...new Set(required)] : null,
      };
    }
    case 'seq': {
      let current: string[] = [''];
      let broken = false;
      let best: string[] | null = null;
      for (const item of node.items) {
        if (item.t === 'char') {
          // Appending one character keeps distinct strings distinct: no set needed.
          for (let k = 0; k < current.length; k++) current[k] += item.c;
          continue;
        }
        const info = analyse(item);
        const joined = appendExact(current, info.exact);
        if (joined) {
          current = joined;
        } else {
          best = better(best, current);
          best = better(best, info.exact ?? info.required);
          if (info.exact) best = better(best, info.required);
          current = [''];
          broken = true;
        }
      }
      best = better(best, current);
      return { exact: broken ? null : current, required: best };
    }
  }
}

/**
 * Strings of which at least one occurs (lowercased) in every match of the pattern, each at least three
 * characters long; null when no such set exists (the pattern then always runs).
 */
export function requiredLiterals(source: string): string[] | null {
  const parsed = parse(source);
  return parsed ? literalsOf(parsed.root) : null;
}

function literalsOf(node: Node): string[] | null {
  const info = analyse(node);
  const best = better(info.exact, info.required);
  if (!best || best.length === 0) return null;
  for (const s of best) if (s.length < MIN_LITERAL) return null;
  return best;
}

/** Further required sets kept per pattern (each is one more lookup where the best set is found). */
const MAX_FURTHER = 4;
/** Unions an alternation may yield (one required set chosen per alternative): beyond, none. */
const MAX_UNIONS = 64;

/**
 * The other sets of strings every match must contain one of (each string three characters or
 * more, or a short one's characters beyond Latin-1: see `requirable`), besides `best`: what each
 * part of a sequence requires on its own. A pattern whose best literal is common (`<div class="`
 * of `<div class="[^"]*aem-Grid`) can then be ruled out by a rarer one it needs too (`aem-grid`).
 * At most four, the longest first.
 */
function furtherLiterals(root: Node, best: string[]): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>([setKey(best)]);
  const add = (strings: string[] | null): void => {
    if (!strings || strings.length === 0) return;
    const set: string[] = [];
    for (const s of strings) {
      const required = requirable(s);
      if (required === null) return;
      if (!set.includes(required)) set.push(required);
    }
    const key = setKey(set);
    if (seen.has(key)) return;
    seen.add(key);
    found.push(set);
  };
  const visit = (node: Node): void => {
    switch (node.t) {
      case 'group':
        if (!node.zeroWidth) visit(node.body);
        return;
      case 'rep':
        if (node.min === 0) return;
        add(literalsOf(node.body));
        visit(node.body);
        return;
      case 'alt':
        // Only what every alternative requires is required: analyse gives the union of each one's
        // best set, and any other set of each alternative serves as well in such a union.
        add(literalsOf(node));
        for (const union of alternationUnions(node)) add(union);
        return;
      case 'seq': {
        // Each maximal run of exactly known text is required, and so is what each other item requires.
        // A run too short to look for, followed by what can only start with a few characters, is
        // required with one of them after it: `p5(?:\.min)?\.js` needs "p5.".
        let current: string[] = [''];
        node.items.forEach((item, index) => {
          const joined =
            item.t === 'char' ? current.map((s) => s + item.c) : appendExact(current, analyse(item).exact);
          if (joined) {
            current = joined;
            return;
          }
          add(current);
          if (current.some((s) => s.length < MIN_LITERAL))
            add(appendExact(current, startOf(node.items.slice(index))));
          current = [''];
          visit(item);
        });
        add(current);
        return;
      }
      default:
        return;
    }
  };
  visit(root);
  // A set that one already kept implies (each string of the kept set contains one of it) rules out
  // no page the kept one lets through: it would only take the place of a set that might.
  const kept: string[][] = [best];
  for (const set of found.sort((a, b) => score(b) - score(a)))
    if (!kept.some((strong) => implies(strong, set))) kept.push(set);
  return kept.slice(1, 1 + MAX_FURTHER);
}

/**
 * What a further set may hold for a string every match contains: the string itself when the
 * literal table can look for it (three characters or more); for a shorter one, its first run of
 * characters beyond Latin-1 that no case folding touches (`⚡` of ` ⚡`), which every text holding
 * the string holds, and which `includes` finds exactly (`isTableLiteral`); null when neither.
 */
function requirable(s: string): string | null {
  if (s.length >= MIN_LITERAL) return s;
  let from = -1;
  for (let k = 0; k <= s.length; k++) {
    const inRun = k < s.length && isCaselessBeyondLatin1(s[k]);
    if (inRun && from < 0) from = k;
    else if (!inRun && from >= 0) return s.slice(from, k);
  }
  return null;
}

/**
 * Whether an `i` regex (not unicode) matches this character with itself alone: no case mapping
 * of its own, and none of another character leads to it (checked over every UTF-16 unit in the
 * tests). Beyond Latin-1, so that a text of Latin-1 characters only cannot hold it.
 */
function isCaselessBeyondLatin1(ch: string): boolean {
  return ch.charCodeAt(0) > 0xff && ch.toLowerCase() === ch && ch.toUpperCase() === ch;
}

/**
 * Whether the literal table looks for a required string; a shorter one (see `requirable`) is
 * looked for in the texts themselves, case-sensitively.
 */
export function isTableLiteral(literal: string): boolean {
  return literal.length >= MIN_LITERAL;
}

/** Whether a text holding one string of `strong` always holds one of `weak`. */
function implies(strong: readonly string[], weak: readonly string[]): boolean {
  return strong.length > 0 && strong.every((s) => weak.some((w) => s.includes(w)));
}

/**
 * The characters (lowercased ASCII) one of which starts every match of the items in sequence; null
 * when unknown, when they can match the empty string or when there are more than four.
 */
function startOf(items: readonly Node[]): string[] | null {
  const start = startOfItems(items);
  return start && !start.empty && start.chars.length <= MAX_START ? start.chars : null;
}

const MAX_START = 4;

interface Start {
  /** The characters a non-empty match may start with (lowercased ASCII). */
  chars: string[];
  /** Whether the node can match the empty string (what follows it may then start the match). */
  empty: boolean;
}

function startOfItems(items: readonly Node[]): Start | null {
  const chars: string[] = [];
  for (const item of items) {
    const start = startOfNode(item);
    if (!start) return null;
    for (const c of start.chars) if (!chars.includes(c)) chars.push(c);
    if (!start.empty) return { chars, empty: false };
  }
  return { chars, empty: true };
}

function startOfNode(node: Node): Start | null {
  switch (node.t) {
    case 'char':
      return isAsciiChar(node.c) ? { chars: [node.c[0]], empty: false } : null;
    case 'set':
      return node.chars && node.chars.every(isAsciiChar) ? { chars: node.chars, empty: false } : null;
    case 'assert':
      return { chars: [], empty: true };
    case 'backref':
      return null;
    case 'group':
      return node.zeroWidth ? { chars: [], empty: true } : startOfNode(node.body);
    case 'rep': {
      const start = startOfNode(node.body);
      return start && { chars: start.chars, empty: start.empty || node.min === 0 };
    }
    case 'alt': {
      const chars: string[] = [];
      let empty = false;
      for (const alt of node.alts) {
        const start = startOfNode(alt);
        if (!start) return null;
        for (const c of start.chars) if (!chars.includes(c)) chars.push(c);
        empty ||= start.empty;
      }
      return { chars, empty };
    }
    case 'seq':
      return startOfItems(node.items);
  }
}

/** Whether a (lowercased) text starts with an ASCII character: one the scan folds as the regex does. */
function isAsciiChar(text: string): boolean {
  return text.length > 0 && text.charCodeAt(0) < 128;
}

/**
 * The sets an alternation requires beyond the union of its alternatives' best sets: a text the
 * alternation matches holds what one alternative requires, so the union of one required set per
 * alternative, whichever each is, is required. `(/.*onsen.*min\.js|.*angular-onsenui\.min\.js)`
 * requires "onsen" as well as one of "min.js" and "angular-onsenui.min.js" (a string that contains
 * another of its union is dropped: the other occurs wherever it does).
 */
function alternationUnions(node: Node & { t: 'alt' }): string[][] {
  const choices: string[][][] = [];
  let count = 1;
  for (const alt of node.alts) {
    const best = literalsOf(alt);
    const sets = best ? [best, ...furtherLiterals(alt, best)] : furtherLiterals(alt, []);
    if (sets.length === 0) return [];
    count *= sets.length;
    if (count > MAX_UNIONS) return [];
    choices.push(sets);
  }
  let unions: string[][] = [[]];
  for (const sets of choices) {
    const next: string[][] = [];
    for (const union of unions) for (const set of sets) next.push([...union, ...set]);
    unions = next;
  }
  return unions.map(withoutContaining);
}

/** The distinct strings of a set but those containing another of them (which add nothing to it). */
function withoutContaining(set: readonly string[]): string[] {
  const distinct = [...new Set(set)];
  return distinct.filter((s) => !distinct.some((other) => other !== s && s.includes(other)));
}

function setKey(set: readonly string[]): string {
  return [...set].sort().join('\u0000');
}

/**
 * What start-up needs of a source, from one parse: the required literals, and whether
 * `rewriteForSafety` would change it (when not, the source is its own safe form and the regex can be
 * built from it at once; when so, the rewrite is left to the pattern's first use).
 */
export function analyseSource(source: string): {
  literals: string[] | null;
  /** Further sets of which one string occurs in every match too (see `furtherLiterals`). */
  alsoRequired: string[][];
  needsRewrite: boolean;
  /** Plain text and escaped punctuation: always a valid regex, its own safe form. */
  plain: boolean;
} {
  // Most patterns are plain text with escaped punctuation: no parse needed for those.
  const plain = plainLiteral(source);
  if (plain !== null)
    return {
      literals: plain.length >= MIN_LITERAL ? [plain] : null,
      alsoRequired: [],
      needsRewrite: false,
      plain: true,
    };
  const parsed = parse(source);
  if (!parsed) return { literals: null, alsoRequired: [], needsRewrite: false, plain: false };
  const literals = literalsOf(parsed.root);
  return {
    literals,
    alsoRequired: literals ? furtherLiterals(parsed.root, literals) : [],
    needsRewrite: parsed.needsRewrite,
    plain: false,
  };
}

/** Whether a source is plain text and escaped punctuation (so a valid regex needing no rewrite). */
export function isPlainSource(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === BACKSLASH && i + 1 < source.length && isEscapedPunctuation(source.charCodeAt(i + 1))) i++;
    else if (isSpecial(code)) return false;
  }
  return true;
}

/**
 * The text a source matches when it is plain characters and backslash-escaped punctuation
 * (lowercased), null when it has anything else.
 */
function plainLiteral(source: string): string | null {
  let out = '';
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === BACKSLASH && i + 1 < source.length && isEscapedPunctuation(source.charCodeAt(i + 1))) {
      out += source.slice(from, i);
      from = ++i;
    } else if (isSpecial(code)) {
      return null;
    }
  }
  return (from === 0 ? source : out + source.slice(from)).toLowerCase();
}

function serialise(node: Node, rewrite: boolean, prev?: Node): string {
  switch (node.t) {
    case 'char':
    case 'set':
    case 'assert':
    case 'backref':
      return node.raw;
    case 'group':
      return `${node.open}${serialise(node.body, rewrite)})`;
    case 'alt':
      return node.alts.map((alt) => serialise(alt, rewrite)).join('|');
    case 'seq': {
      let out = '';
      node.items.forEach((item, index) => {
        out += serialise(item, rewrite, node.items[index - 1]);
      });
      return out;
    }
    case 'rep': {
      let body = serialise(node.body, rewrite);
      // `<[^>]*X` matches exactly when `<[^<>]*X` does (take the last "<" before X), but the second
      // cannot rescan the same run of text from every "<" in it.
      if (
        rewrite &&
        prev?.t === 'char' &&
        prev.c.endsWith('<') &&
        node.body.t === 'set' &&
        node.body.raw === '[^>]'
      ) {
        body = '[^<>]';
      }
      if (!rewrite || node.max !== Infinity || node.min > QUANTIFIER_CAP) return body + node.raw;
      return `${body}{${node.min},${QUANTIFIER_CAP}}${node.lazy ? '?' : ''}`;
    }
  }
}

/** The source with bounded quantifiers and linear tag scans; the source itself when it cannot parse it. */
export function rewriteForSafety(source: string): string {
  const parsed = parse(source);
  return parsed ? serialise(parsed.root, true) : source;
}
