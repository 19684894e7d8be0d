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

type Node =
  | { t: 'char'; raw: string; c: string }
  | { t: 'set'; raw: string; chars: string[] | null }
  | { t: 'assert'; raw: string }
  | { t: 'backref'; raw: string }
  | { t: 'group'; open: string; body: Node; zeroWidth: boolean }
  | { t: 'rep'; body: Node; min: number; max: number; lazy: boolean; raw: string }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] };

/** Quantifier bound the rewrite gives `*`, `+` and `{n,}`: the one the reference engine uses. */
export const QUANTIFIER_CAP = 250;

const MAX_EXACT = 32;
/** Anything but plain characters and backslash-escaped punctuation. */
const ESCAPED_PUNCTUATION = /\\[/.\-_:;=@#%&'"~`!,<>]/g;
const SPECIAL = /[[\](){}*+?|^$.\\]/;
const MIN_LITERAL = 3;

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i !== this.src.length) throw new Error('unbalanced )');
    return node;
  }

  private alternation(): Node {
    const alts: Node[] = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      let atom = this.atom();
      const q = this.quantifier();
      if (q) {
        if (atom.t === 'assert' || (atom.t === 'group' && atom.zeroWidth))
          throw new Error('quantified assertion');
        atom = { t: 'rep', body: atom, ...q };
      }
      items.push(atom);
    }
    return { t: 'seq', items };
  }

  private quantifier(): { min: number; max: number; lazy: boolean; raw: string } | null {
    const s = this.src;
    const start = this.i;
    let min: number;
    let max: number;
    const c = s[this.i];
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i, this.i + 24));
      if (!m) return null; // a lone "{" is a literal in non-unicode mode
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else {
      return null;
    }
    const lazy = s[this.i] === '?';
    if (lazy) this.i++;
    return { min, max, lazy, raw: s.slice(start, this.i) };
  }

  private atom(): Node {
    const s = this.src;
    const c = s[this.i];
    if (c === '(') return this.group();
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    if (c === '*' || c === '+' || c === '?') throw new Error('nothing to repeat');
    this.i++;
    if (c === '.') return { t: 'set', raw: c, chars: null };
    if (c === '^' || c === '$') return { t: 'assert', raw: c };
    return { t: 'char', raw: c, c: c.toLowerCase() };
  }

  private group(): Node {
    const s = this.src;
    let open = '(';
    let zeroWidth = false;
    if (s[this.i + 1] === '?') {
      const m = /^\(\?(?::|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(s.slice(this.i, this.i + 64));
      if (!m) throw new Error('unsupported group');
      open = m[0];
      zeroWidth = open === '(?=' || open === '(?!' || open === '(?<=' || open === '(?<!';
    }
    this.i += open.length;
    const body = this.alternation();
    if (s[this.i] !== ')') throw new Error('unterminated group');
    this.i++;
    return { t: 'group', open, body, zeroWidth };
  }

  private charClass(): Node {
    const s = this.src;
    const start = this.i;
    this.i++;
    const negated = s[this.i] === '^';
    if (negated) this.i++;
    const chars: string[] = [];
    let simple = !negated;
    while (this.i < s.length && s[this.i] !== ']') {
      const ch = s[this.i];
      if (ch === '\\') {
        const next = s[this.i + 1] ?? '';
        this.i += 2;
        if (/[dDwWsSbBcxu0-9]/.test(next)) simple = false;
        else chars.push(next);
        if (next === 'x') this.i += 2;
        else if (next === 'u') this.i += 4;
        else if (next === 'c') this.i += 1;
        if (s[this.i] === '-' && s[this.i + 1] !== ']') simple = false;
      } else {
        if (s[this.i + 1] === '-' && s[this.i + 2] !== undefined && s[this.i + 2] !== ']') simple = false;
        chars.push(ch);
        this.i++;
      }
    }
    if (s[this.i] !== ']') throw new Error('unterminated class');
    this.i++;
    const lowered = [...new Set(chars.map((ch) => ch.toLowerCase()))];
    return { t: 'set', raw: s.slice(start, this.i), chars: simple && lowered.length ? lowered : null };
  }

  private escape(): Node {
    const s = this.src;
    const next = s[this.i + 1];
    if (next === undefined) throw new Error('trailing backslash');
    const start = this.i;
    this.i += 2;
    if ('dDwWsS'.includes(next)) return { t: 'set', raw: s.slice(start, this.i), chars: null };
    if (next === 'b' || next === 'B') return { t: 'assert', raw: s.slice(start, this.i) };
    if (/[1-9]/.test(next)) {
      while (/[0-9]/.test(s[this.i] ?? '')) this.i++;
      return { t: 'backref', raw: s.slice(start, this.i) };
    }
    const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v', '0': '\0' };
    if (next in simple) return { t: 'char', raw: s.slice(start, this.i), c: simple[next] };
    if (next === 'x' || next === 'u') {
      const len = next === 'x' ? 2 : 4;
      const hex = s.slice(this.i, this.i + len);
      if (new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) {
        this.i += len;
        return {
          t: 'char',
          raw: s.slice(start, this.i),
          c: String.fromCharCode(parseInt(hex, 16)).toLowerCase(),
        };
      }
      return { t: 'char', raw: s.slice(start, this.i), c: next };
    }
    if (next === 'c' || next === 'k' || next === 'p' || next === 'P') {
      return { t: 'set', raw: s.slice(start, this.i), chars: null };
    }
    return { t: 'char', raw: s.slice(start, this.i), c: next.toLowerCase() };
  }
}

/** Parses a source; null when the parser does not understand it. */
function parse(source: string): Node | null {
  try {
    return new Parser(source).parse();
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
        if (info.exact && info.exact.length * current.length <= MAX_EXACT) {
          const next: string[] = [];
          for (const a of current) for (const b of info.exact) next.push(a + b);
          current = [...new Set(next)];
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
  const node = parse(source);
  return node ? literalsOf(node) : null;
}

function literalsOf(node: Node): string[] | null {
  const info = analyse(node);
  const best = better(info.exact, info.required);
  if (!best || best.length === 0) return null;
  for (const s of best) if (s.length < MIN_LITERAL) return null;
  return best;
}

/** Both results of one parse: the safe rewrite (or the source as is) and the required literals. */
export function analyseSource(source: string): { rewritten: string; literals: string[] | null } {
  // Most patterns are plain text with escaped punctuation: no parse needed for those.
  if (!SPECIAL.test(source.replace(ESCAPED_PUNCTUATION, ''))) {
    const literal = source.replace(/\\(.)/g, '$1').toLowerCase();
    return { rewritten: source, literals: literal.length >= MIN_LITERAL ? [literal] : null };
  }
  const node = parse(source);
  return node
    ? { rewritten: serialise(node, true), literals: literalsOf(node) }
    : { rewritten: source, literals: null };
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
        prev.c === '<' &&
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
  const node = parse(source);
  return node ? serialise(node, true) : source;
}

/** True when the parser understands the source (exported for tests of the round trip). */
export function roundTrips(source: string): boolean {
  const node = parse(source);
  return node !== null && serialise(node, false) === source;
}
