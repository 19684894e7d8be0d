import { getAttribute, type LightDocument, type LightElement } from '../html';
import { lowerName } from '../html/known-names';

/**
 * CSS selectors as the fingerprints use them (type, #id, .class, attribute tests with the six
 * operators and the i flag, :not(), :is()/:where()/:matches(), the structural pseudo-classes
 * including :nth-child(an+b) and the -of-type family; descendant, child and sibling combinators),
 * matched right to left on the light element tree: the page's one reading, no second DOM. A
 * selector outside this set (:has(), namespaces, pseudo-elements, state pseudo-classes a static
 * page cannot have) makes `parseSelectorList` throw: it is reported at load and never matches.
 */

interface AttrTest {
  name: string;
  op: '' | '=' | '~=' | '|=' | '^=' | '$=' | '*=';
  value: string;
  insensitive: boolean;
}

type Pseudo =
  | { kind: 'not' | 'is'; list: Complex[] }
  | { kind: 'nth-child' | 'nth-last-child' | 'nth-of-type' | 'nth-last-of-type'; a: number; b: number }
  | {
      kind:
        | 'first-child'
        | 'last-child'
        | 'only-child'
        | 'first-of-type'
        | 'last-of-type'
        | 'only-of-type'
        | 'root'
        | 'empty';
    };

export interface Compound {
  tag: string | null;
  ids: string[];
  classes: string[];
  attrs: AttrTest[];
  pseudos: Pseudo[];
}

export interface Complex {
  compounds: Compound[];
  /** combinators[k] joins compounds[k] and compounds[k + 1]. */
  combinators: string[];
}

/** [\w\-\u00a0-\uffff] by character code (-1 past the end): a code test per character, no regex. */
export function isIdentChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 45 ||
    code >= 0xa0
  );
}

/** What /\s/ matches, by character code. */
export function isSpace(code: number): boolean {
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

class SelectorParser {
  private i = 0;
  constructor(private readonly s: string) {}

  list(stopAtParen = false): Complex[] {
    const out: Complex[] = [this.complex()];
    for (;;) {
      this.spaces();
      if (this.s[this.i] === ',') {
        this.i++;
        out.push(this.complex());
      } else if (stopAtParen && this.s[this.i] === ')') {
        return out;
      } else if (this.i >= this.s.length && !stopAtParen) {
        return out;
      } else {
        throw new Error(`unexpected "${this.s[this.i]}" at ${this.i}`);
      }
    }
  }

  /** The code at i, -1 past the end. */
  private code(at: number): number {
    return at < this.s.length ? this.s.charCodeAt(at) : -1;
  }

  private spaces(): boolean {
    const start = this.i;
    while (isSpace(this.code(this.i))) this.i++;
    return this.i > start;
  }

  private complex(): Complex {
    this.spaces();
    const compounds = [this.compound()];
    const combinators: string[] = [];
    for (;;) {
      const hadSpace = this.spaces();
      const c = this.s[this.i];
      if (c === '>' || c === '+' || c === '~') {
        this.i++;
        this.spaces();
        combinators.push(c);
      } else if (hadSpace && c !== undefined && c !== ',' && c !== ')') {
        combinators.push(' ');
      } else {
        return { compounds, combinators };
      }
      compounds.push(this.compound());
    }
  }

  private ident(): string {
    // Runs of plain characters are sliced, not appended one by one; an escape adds the character after it.
    let out = '';
    let from = this.i;
    while (this.i < this.s.length) {
      const code = this.s.charCodeAt(this.i);
      if (code === 92 && this.i + 1 < this.s.length) {
        out += this.s.slice(from, this.i) + this.s[this.i + 1];
        this.i += 2;
        from = this.i;
      } else if (isIdentChar(code)) {
        this.i++;
      } else {
        break;
      }
    }
    out += this.s.slice(from, this.i);
    if (!out) throw new Error(`identifier expected at ${this.i}`);
    return out;
  }

  private compound(): Compound {
    const compound: Compound = { tag: null, ids: [], classes: [], attrs: [], pseudos: [] };
    const start = this.i;
    if (this.s[this.i] === '*') this.i++;
    else if (isIdentChar(this.code(this.i))) compound.tag = tableName(this.ident());
    for (;;) {
      const c = this.s[this.i];
      if (c === '#') {
        this.i++;
        compound.ids.push(this.ident());
      } else if (c === '.') {
        this.i++;
        compound.classes.push(this.ident());
      } else if (c === '[') {
        this.i++;
        compound.attrs.push(this.attribute());
      } else if (c === ':') {
        this.i++;
        compound.pseudos.push(this.pseudo());
      } else {
        break;
      }
    }
    if (this.i === start) throw new Error(`selector expected at ${this.i}`);
    return compound;
  }

  private attribute(): AttrTest {
    this.spaces();
    const name = tableName(this.ident());
    this.spaces();
    let op: AttrTest['op'] = '';
    let value = '';
    let insensitive = false;
    const first = this.code(this.i);
    if (first === 61) op = '=';
    else if (this.code(this.i + 1) === 61 && '~|^$*'.includes(this.s[this.i]))
      op = `${this.s[this.i]}=` as AttrTest['op'];
    if (op) {
      this.i += op.length;
      this.spaces();
      const q = this.s[this.i];
      if (q === '"' || q === "'") {
        // CSS closes a string left open at the end of the selector (as browsers and jsdom read it).
        const found = this.s.indexOf(q, this.i + 1);
        const close = found < 0 ? this.s.length : found;
        value = this.s.slice(this.i + 1, close).replace(/\\(.)/g, '$1');
        this.i = found < 0 ? close : close + 1;
        if (found < 0) return { name, op, value, insensitive };
      } else {
        value = this.ident();
      }
      this.spaces();
      if (/[iIsS]/.test(this.s[this.i] ?? '') && !isIdentChar(this.code(this.i + 1))) {
        insensitive = this.s[this.i].toLowerCase() === 'i';
        this.i++;
        this.spaces();
      }
    }
    if (this.s[this.i] !== ']') throw new Error('"]" expected');
    this.i++;
    return { name, op, value, insensitive };
  }

  private pseudo(): Pseudo {
    const name = this.ident().toLowerCase();
    if (name === 'not' || name === 'is' || name === 'where' || name === 'matches' || name === '-webkit-any') {
      if (this.s[this.i] !== '(') throw new Error('"(" expected');
      this.i++;
      const list = this.list(true);
      this.i++;
      return { kind: name === 'not' ? 'not' : 'is', list };
    }
    if (
      name === 'nth-child' ||
      name === 'nth-last-child' ||
      name === 'nth-of-type' ||
      name === 'nth-last-of-type'
    ) {
      if (this.s[this.i] !== '(') throw new Error('"(" expected');
      const close = this.s.indexOf(')', this.i);
      if (close < 0) throw new Error('")" expected');
      const [a, b] = parseNth(this.s.slice(this.i + 1, close));
      this.i = close + 1;
      return { kind: name, a, b };
    }
    if (
      name === 'first-child' ||
      name === 'last-child' ||
      name === 'only-child' ||
      name === 'first-of-type' ||
      name === 'last-of-type' ||
      name === 'only-of-type' ||
      name === 'root' ||
      name === 'empty'
    ) {
      return { kind: name };
    }
    throw new Error(`unsupported pseudo-class :${name}`);
  }
}

/**
 * The name lowercased, as the known-names table's own string when it holds it: the reading records
 * known tag and attribute names as those strings, and the page's index and tests compare the
 * selector's names with them, a comparison of two such strings being one of identity.
 */
function tableName(name: string): string {
  return lowerName(name, 0, name.length);
}

/** The a and b of an+b (odd, even, 3, 2n+1, -n+3, n). */
function parseNth(text: string): [number, number] {
  const t = text.trim().toLowerCase().replace(/\s+/g, '');
  if (t === 'odd') return [2, 1];
  if (t === 'even') return [2, 0];
  const m = /^([+-]?\d*)n([+-]\d+)?$/.exec(t);
  if (m) {
    const a = m[1] === '' || m[1] === '+' ? 1 : m[1] === '-' ? -1 : parseInt(m[1], 10);
    return [a, m[2] ? parseInt(m[2], 10) : 0];
  }
  if (/^[+-]?\d+$/.test(t)) return [0, parseInt(t, 10)];
  throw new Error(`bad an+b "${text}"`);
}

/** Does position p (1-based) satisfy an+b for some n >= 0? */
function nthMatches(a: number, b: number, p: number): boolean {
  if (a === 0) return p === b;
  const n = (p - b) / a;
  return Number.isInteger(n) && n >= 0;
}

/**
 * 1-based position of the element among its element siblings (of its type with `ofType`), from the
 * first or, with `fromEnd`, from the last. Top-level elements have no parent element: as for
 * :last-child, they count as neither first nor last from the end.
 */
function siblingPosition(doc: LightDocument, index: number, ofType: boolean, fromEnd: boolean): number {
  const element = doc.elements[index];
  const same = (k: number): boolean => !ofType || doc.elements[k].tag === element.tag;
  if (!fromEnd) {
    let position = 1;
    for (let s = element.prev; s >= 0; s = doc.elements[s].prev) if (same(s)) position++;
    return position;
  }
  if (element.parent === -1) return 0;
  let position = 1;
  for (let s = doc.elements[element.parent].lastChild; s >= 0 && s !== index; s = doc.elements[s].prev)
    if (same(s)) position++;
  return position;
}

export function parseSelectorList(selector: string): Complex[] {
  return new SelectorParser(selector.trim()).list();
}

function attrMatches(element: LightElement, test: AttrTest): boolean {
  const actual = getAttribute(element, test.name);
  if (actual === null) return false;
  if (test.op === '') return true;
  let value = test.value;
  let have = actual;
  if (test.insensitive) {
    value = value.toLowerCase();
    have = have.toLowerCase();
  }
  switch (test.op) {
    case '=':
      return have === value;
    case '~=':
      return tokenCount(have, value) > 0;
    case '|=':
      return have === value || have.startsWith(`${value}-`);
    case '^=':
      return value !== '' && have.startsWith(value);
    case '$=':
      return value !== '' && have.endsWith(value);
    case '*=':
      return value !== '' && have.includes(value);
  }
}

function hasClass(element: LightElement, name: string): boolean {
  const value = getAttribute(element, 'class');
  return value !== null && tokenCount(value, name) > 0;
}

/**
 * How many of the whitespace-separated tokens of value (those `value.split(/\s+/)` gives) equal
 * token: found by indexOf and a look at the characters around, without splitting the value.
 */
export function tokenCount(value: string, token: string): number {
  let count = 0;
  for (let at = value.indexOf(token); at >= 0; at = value.indexOf(token, at + 1)) {
    // A token holds no whitespace (nor is empty): such a name equals none.
    if (count === 0 && !isToken(token)) return 0;
    const end = at + token.length;
    if (
      (at === 0 || isSpace(value.charCodeAt(at - 1))) &&
      (end === value.length || isSpace(value.charCodeAt(end)))
    )
      count++;
  }
  return count;
}

function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let k = 0; k < text.length; k++) if (isSpace(text.charCodeAt(k))) return false;
  return true;
}

function compoundMatches(doc: LightDocument, index: number, compound: Compound): boolean {
  const element = doc.elements[index];
  if (compound.tag !== null && element.tag !== compound.tag) return false;
  for (const id of compound.ids) if (getAttribute(element, 'id') !== id) return false;
  for (const name of compound.classes) if (!hasClass(element, name)) return false;
  for (const test of compound.attrs) if (!attrMatches(element, test)) return false;
  for (const pseudo of compound.pseudos) {
    switch (pseudo.kind) {
      case 'not':
        if (anyMatches(doc, index, pseudo.list)) return false;
        break;
      case 'is':
        if (!anyMatches(doc, index, pseudo.list)) return false;
        break;
      case 'nth-child':
      case 'nth-last-child':
      case 'nth-of-type':
      case 'nth-last-of-type': {
        const ofType = pseudo.kind.endsWith('of-type');
        const fromEnd = pseudo.kind.startsWith('nth-last');
        if (!nthMatches(pseudo.a, pseudo.b, siblingPosition(doc, index, ofType, fromEnd))) return false;
        break;
      }
      case 'first-of-type':
        if (siblingPosition(doc, index, true, false) !== 1) return false;
        break;
      case 'last-of-type':
        if (siblingPosition(doc, index, true, true) !== 1) return false;
        break;
      case 'only-of-type':
        if (siblingPosition(doc, index, true, false) !== 1 || siblingPosition(doc, index, true, true) !== 1)
          return false;
        break;
      case 'root':
        if (element.parent !== -1 || element.tag !== 'html') return false;
        break;
      case 'empty':
        if (element.end !== index || element.textEnd !== element.textStart) return false;
        break;
      default: {
        const first = element.prev === -1;
        const last = element.parent === -1 ? false : doc.elements[element.parent].lastChild === index;
        if (pseudo.kind === 'first-child' && !first) return false;
        if (pseudo.kind === 'last-child' && !last) return false;
        if (pseudo.kind === 'only-child' && !(first && last)) return false;
      }
    }
  }
  return true;
}

function matchFrom(doc: LightDocument, index: number, complex: Complex, at: number): boolean {
  if (!compoundMatches(doc, index, complex.compounds[at])) return false;
  if (at === 0) return true;
  const element = doc.elements[index];
  switch (complex.combinators[at - 1]) {
    case '>':
      return element.parent >= 0 && matchFrom(doc, element.parent, complex, at - 1);
    case '+':
      return element.prev >= 0 && matchFrom(doc, element.prev, complex, at - 1);
    case '~':
      for (let s = element.prev; s >= 0; s = doc.elements[s].prev)
        if (matchFrom(doc, s, complex, at - 1)) return true;
      return false;
    default:
      for (let a = element.parent; a >= 0; a = doc.elements[a].parent)
        if (matchFrom(doc, a, complex, at - 1)) return true;
      return false;
  }
}

export function complexMatches(doc: LightDocument, index: number, complex: Complex): boolean {
  return matchFrom(doc, index, complex, complex.compounds.length - 1);
}

function anyMatches(doc: LightDocument, index: number, list: readonly Complex[]): boolean {
  for (const complex of list) if (complexMatches(doc, index, complex)) return true;
  return false;
}

/**
 * Strings that must occur (case-insensitively) in the markup for the complex selector to match anything:
 * tag and attribute names, ids, classes and attribute-value fragments. Returns the longest of the
 * ids, classes and value fragments (what the page author wrote, rare across pages), else the longest
 * of the tag and attribute names (`div`, `href`, `content`: on nearly every page, so a rule keyed on
 * one runs on nearly every page). A value's fragments are its runs without `&<>"'` or whitespace,
 * the characters markup may write otherwise.
 */
export function selectorLiteral(complex: Complex): string | null {
  let named = '';
  let written = '';
  const name = (text: string): void => {
    named = longerLiteral(named, text);
  };
  const value = (text: string): void => {
    written = longerLiteral(written, text);
  };
  for (const compound of complex.compounds) {
    if (compound.tag) name(compound.tag);
    compound.ids.forEach(value);
    compound.classes.forEach(value);
    for (const test of compound.attrs) {
      name(test.name);
      if (test.op !== '' && test.op !== '|=') value(test.value);
    }
  }
  const best = written.length >= 3 ? written : named;
  return best.length >= 3 ? best.toLowerCase() : null;
}

/** Characters a selector's text may be written otherwise in markup (an entity, other quotes, `&#10;`). */
const NOT_AS_WRITTEN = /[&<>"'\s]+/;

/** `best`, or the first fragment of `text` strictly longer than it (see `selectorLiteral`). */
export function longerLiteral(best: string, text: string): string {
  if (!NOT_AS_WRITTEN.test(text)) return text.length > best.length ? text : best;
  for (const fragment of text.split(NOT_AS_WRITTEN)) if (fragment.length > best.length) best = fragment;
  return best;
}
