import { isAssertionFree } from './assertion-free';
import { complexMatches, tokenCount, type Complex, type Compound } from './css-selector';
import type { DomRule } from './fingerprints';
import { PageAttributeValues } from './page-attribute-values';
import type { SelectorKeys } from './selector-keys';
import { sortIndices } from './sort-indices';
import { requiredTextLiterals, runHoldsAll } from './text-literals';
import { getAttribute, textContent, type LightDocument } from '../html';

/** Nodes a selector may yield per rule, as the reference browser driver caps detections at 50. */
export const MAX_DOM_NODES = 50;
/** Candidate elements examined per selector: bounds the work on pathological pages. */
export const MAX_DOM_CANDIDATES = 5_000;
const TEXT_CONTENT_LIMIT = 1_000_000;
/** Candidates up to which a complex's elements are tried without first asking if it is possible. */
const FEW_CANDIDATES = 16;
/**
 * Characters from which an element's text not built yet is first searched for the required strings
 * of a regex with assertions: a string this long takes longer to build than to search, and a miss
 * rules out its descendants, which the regex's own miss does not.
 */
const LONG_TEXT = 32_768;

/** Element lists by key (a tag, id or class); a list per key asked for. */
type Lists = Map<string, number[]>;

/** The elements having an attribute name, and its decoded value on each, in document order. */
interface Named {
  readonly elements: number[];
  readonly values: string[];
}
type NamedLists = Map<string, Named>;

/**
 * Indexes of the light tree by what selectors key on, for the keys the page's rules name only: a
 * page runs a few dozen rules naming a few dozen keys, so listing every tag, attribute and class of
 * every element (most of them never looked up) is work thrown away. Tags and attribute names are
 * listed in one pass over the elements, on the first look-up; an id's or a class's list is read off
 * the page's `id` or `class` values when first asked for. Each list holds an element once per
 * occurrence of its key (a class written twice lists it twice), ascending.
 */
class ElementIndex {
  private readonly tags: Lists = new Map();
  private readonly ids: Lists = new Map();
  private readonly classes: Lists = new Map();
  private readonly named: NamedLists = new Map();
  private readonly page: PageAttributeValues = new PageAttributeValues();
  private built = false;

  constructor(private readonly doc: LightDocument) {}

  /** Registers the keys a rule's look-ups use (before the first look-up; later ones still work). */
  want(keys: SelectorKeys): void {
    for (const tag of keys.tags) want(this.tags, tag);
    if (keys.ids.length > 0) wantNamed(this.named, 'id');
    if (keys.classes.length > 0) wantNamed(this.named, 'class');
    for (const name of keys.names) wantNamed(this.named, name);
  }

  private build(): void {
    listElements(this.doc, this.tags, this.named);
    this.built = true;
  }

  private tagList(tag: string): number[] {
    if (!this.built) this.build();
    let list = this.tags.get(tag);
    if (list === undefined) {
      // A tag no registered compound named: listed on its own.
      const one: Lists = new Map([[tag, []]]);
      listElements(this.doc, one, new Map());
      list = one.get(tag) as number[];
      this.tags.set(tag, list);
    }
    return list;
  }

  /** The elements whose id is `id`: those of the page's `id` values equal to it. */
  private idList(id: string): number[] {
    return this.ids.get(id) ?? this.read(this.ids, id, 'id', (value) => (value === id ? 1 : 0));
  }

  /**
   * The elements having class `cls`, once per occurrence of it in their `class` value, read value
   * by value. Not first looked for in all the class values joined: the class most rules name
   * (`fa`) is a part of some class on nearly every page, so that look rarely spared the reading,
   * and the join cost more than the reading it spared on the others.
   */
  private classList(cls: string): number[] {
    return this.classes.get(cls) ?? this.read(this.classes, cls, 'class', (value) => tokenCount(value, cls));
  }

  /** Lists under `key` each element as many times as `count` gives for its value of attribute `name`. */
  private read(lists: Lists, key: string, name: string, count: (value: string) => number): number[] {
    const { elements, values } = this.namedLists(name);
    const list: number[] = [];
    for (let k = 0; k < values.length; k++) for (let n = count(values[k]); n > 0; n--) list.push(elements[k]);
    lists.set(key, list);
    return list;
  }

  /** The elements having an attribute name and their values (the name registered or not). */
  namedLists(name: string): Named {
    if (!this.built) this.build();
    let named = this.named.get(name);
    if (named === undefined) {
      // A name no registered compound tested: read on its own.
      const one: NamedLists = new Map();
      wantNamed(one, name);
      listElements(this.doc, new Map(), one);
      named = one.get(name) as Named;
      this.named.set(name, named);
    }
    return named;
  }

  /**
   * False when some compound of the complex needs an id, class or attribute name no element of the
   * page has, or an attribute value holding a text no value of that name holds: the complex then
   * matches nothing, and no element needs trying.
   */
  possible(complex: Complex): boolean {
    const compounds = complex.compounds;
    for (let c = 0; c < compounds.length; c++) {
      const compound = compounds[c];
      for (const id of compound.ids) if (this.idList(id).length === 0) return false;
      for (const cls of compound.classes) if (this.classList(cls).length === 0) return false;
      for (const test of compound.attrs) {
        const values = this.namedLists(test.name).values;
        if (values.length === 0) return false;
        if (test.op !== '' && !this.page.holds(values, test.name, test.value, test.insensitive)) return false;
      }
    }
    return true;
  }

  /**
   * Elements (ascending, a superset of the compound's matches) to try, null for all. Every id,
   * class, tag and attribute name of the compound narrows it: the shortest of their lists is
   * taken, which yields the same matches in the same order as the first one (by id, class, tag,
   * attribute) when that one is within the examined bound.
   */
  candidates(compound: Compound, all: number): number[] | null {
    const first = this.firstCandidates(compound, all);
    if (first === null || first.length <= 1 || first.length > MAX_DOM_CANDIDATES) return first;
    let best = first;
    for (const id of compound.ids) best = shorter(best, this.idList(id));
    for (const cls of compound.classes) best = shorter(best, this.classList(cls));
    if (compound.tag) best = shorter(best, this.tagList(compound.tag));
    for (const test of compound.attrs) best = shorter(best, this.namedLists(test.name).elements);
    return best;
  }

  private firstCandidates(compound: Compound, all: number): number[] | null {
    if (compound.ids.length) return this.idList(compound.ids[0]);
    if (compound.classes.length) return this.classList(compound.classes[0]);
    if (compound.tag) return this.tagList(compound.tag);
    if (compound.attrs.length) return this.namedLists(compound.attrs[0].name).elements;
    return all > 0 ? null : [];
  }
}

function want(lists: Lists, key: string): void {
  if (!lists.has(key)) lists.set(key, []);
}

function wantNamed(named: NamedLists, name: string): void {
  if (!named.has(name)) named.set(name, { elements: [], values: [] });
}

/** The second list when strictly shorter (the first of equal ones is kept). */
function shorter(best: number[], list: number[]): number[] {
  return list.length < best.length ? list : best;
}

/**
 * Fills each list of `tags` with the elements of its tag, and each named entry with the elements
 * having its attribute and their values, in one pass over the elements.
 */
function listElements(doc: LightDocument, tags: Lists, named: NamedLists): void {
  const byTag = tags.size > 0;
  const byAttribute = named.size > 0;
  if (!byTag && !byAttribute) return;
  const elements = doc.elements;
  for (let index = 0; index < elements.length; index++) {
    const element = elements[index];
    if (byTag) tags.get(element.tag)?.push(index);
    if (!byAttribute) continue;
    const list = element.attrs;
    for (let k = 0; k < list.length; k += 2) {
      const lists = named.get(list[k]);
      if (lists !== undefined) {
        lists.elements.push(index);
        lists.values.push(list[k + 1]);
      }
    }
  }
}

/**
 * Selector evaluation on the light tree, the page's one reading: no second DOM is built (jsdom,
 * once the fallback for selectors the engine could not read, cost 21-93 ms a page just to parse).
 * A selector the engine cannot read was reported at load and matches nothing.
 */
export class DomMatcher {
  private readonly index: ElementIndex;
  /** Elements a rule already yielded (set while matching one rule, cleared after). */
  private marks: Uint8Array | null = null;
  /**
   * What each selector yielded: a page's rules repeat selectors (several technologies look at
   * `style` or `script` elements), and the same selector yields the same elements.
   */
  private readonly bySelector = new Map<string, readonly number[]>();
  /** Elements' texts already built: rules of one selector read the same elements' texts. */
  private readonly texts = new Map<number, string>();

  /** `rules`: those the page will run, whose keys the index lists (others may run too, at a cost). */
  constructor(
    private readonly doc: LightDocument,
    rules: readonly DomRule[] = [],
  ) {
    this.index = new ElementIndex(doc);
    for (const rule of rules) this.index.want(rule.indexKeys);
  }

  /** The elements (ascending indices in the document) the rule's selector matches. */
  nodes(rule: DomRule): readonly number[] {
    let nodes = this.bySelector.get(rule.selector);
    if (nodes === undefined) {
      const complexes = rule.complexes;
      nodes = complexes ? this.lightNodes(complexes, MAX_DOM_NODES) : [];
      this.bySelector.set(rule.selector, nodes);
    }
    return nodes;
  }

  /**
   * Whether the rule's selector matches any element: `nodes` is not empty. Found by looking for one
   * element only, unless the nodes are known already.
   */
  matchesAny(rule: DomRule): boolean {
    const nodes = this.bySelector.get(rule.selector);
    if (nodes !== undefined) return nodes.length > 0;
    const complexes = rule.complexes;
    return complexes !== null && this.lightNodes(complexes, 1).length > 0;
  }

  /** Whether some element of the page has the attribute. */
  hasAttribute(name: string): boolean {
    return this.index.namedLists(name).elements.length > 0;
  }

  attribute(element: number, name: string): string | null {
    return getAttribute(this.doc.elements[element], name);
  }

  text(element: number): string {
    let text = this.texts.get(element);
    if (text === undefined) {
      text = textContent(this.doc, this.doc.elements[element]).slice(0, TEXT_CONTENT_LIMIT);
      this.texts.set(element, text);
    }
    return text;
  }

  /**
   * The regex's match in the first of the elements' texts (trimmed, the empty ones skipped) it
   * matches, null when none. A descendant's text is part of its ancestor's: when the regex reads
   * only the characters it consumes and missed the ancestor's whole text, it misses the
   * descendant's, which is then neither built nor read (the first elements of a `div` rule are
   * mostly wrappers of the whole page).
   */
  firstTextMatch(elements: readonly number[], regex: RegExp): RegExpExecArray | null {
    const closed = isAssertionFree(regex);
    const needs = requiredTextLiterals(regex);
    // A regex that reads only what it consumes rules out the descendants of a text it missed, and
    // reads the text about as fast as the lowercased search for its strings: searching first only
    // pays on a text too long to be read whole, whose miss rules out nothing.
    const longText = closed ? TEXT_CONTENT_LIMIT : LONG_TEXT;
    let missedUpTo = -1;
    for (const element of elements) {
      if (element <= missedUpTo) continue;
      if (needs.length > 0 && this.lacks(element, needs, longText)) {
        // Its descendants' texts are parts of its text: they lack the strings too.
        missedUpTo = this.doc.elements[element].end;
        continue;
      }
      const whole = this.text(element);
      const text = whole.trim();
      const match = text ? regex.exec(text) : null;
      if (match) return match;
      if (closed && whole.length < TEXT_CONTENT_LIMIT) missedUpTo = this.doc.elements[element].end;
    }
    return null;
  }

  /**
   * True when the element's text has `longText` characters or more, is made of several pieces (one
   * piece is its own text, got without a copy), is not built yet, and lacks a string of one of
   * `needs`, found without building it: the regex then matches neither it nor any part of it.
   */
  private lacks(element: number, needs: readonly (readonly string[])[], longText: number): boolean {
    const { textStart, textEnd } = this.doc.elements[element];
    if (textEnd - textStart < 2 || this.texts.has(element)) return false;
    const texts = this.doc.texts;
    let length = 0;
    for (let k = textStart; k < textEnd && length < longText; k++) length += texts[k].length;
    return length >= longText && !runHoldsAll(texts, textStart, textEnd, needs);
  }

  /** The first `most` elements the complexes match (each complex's in turn), ascending. */
  private lightNodes(complexes: Complex[], most: number): number[] {
    const elements = this.doc.elements;
    const marks = (this.marks ??= new Uint8Array(elements.length));
    const out: number[] = [];
    for (const complex of complexes) {
      if (out.length >= most) break;
      const last = complex.compounds[complex.compounds.length - 1];
      const candidates = this.index.candidates(last, elements.length);
      const count = candidates ? candidates.length : elements.length;
      // A few candidates are tried at once: cheaper than reading the page's values of the names
      // the complex tests (`possible`), which only spares trying elements that would not match.
      if (count > FEW_CANDIDATES && !this.index.possible(complex)) continue;
      const limit = Math.min(count, MAX_DOM_CANDIDATES);
      for (let k = 0; k < limit && out.length < most; k++) {
        const index = candidates ? candidates[k] : k;
        if (marks[index] === 0 && complexMatches(this.doc, index, complex)) {
          marks[index] = 1;
          out.push(index);
        }
      }
    }
    for (const index of out) marks[index] = 0;
    // One complex yields its elements in ascending order already.
    if (complexes.length > 1) sortIndices(out);
    return out;
  }
}
