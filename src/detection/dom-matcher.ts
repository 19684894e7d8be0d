import { complexMatches, type Complex, type Compound } from './css-selector';
import type { DomRule } from './fingerprints';
import { getAttribute, textContent, type LightDocument } from '../html';

/** Nodes a selector may yield per rule, as the reference browser driver caps detections at 50. */
export const MAX_DOM_NODES = 50;
/** Candidate elements examined per selector: bounds the work on pathological pages. */
export const MAX_DOM_CANDIDATES = 5_000;
const TEXT_CONTENT_LIMIT = 1_000_000;

/** A node a rule's selector matched, seen through what the patterns read of it. */
export interface DomNode {
  attribute(name: string): string | null;
  text(): string;
}

/** Indexes of the light tree by what selectors key on; each built once per page, on first use. */
class ElementIndex {
  private tags: Map<string, number[]> | null = null;
  private ids: Map<string, number[]> | null = null;
  private attrs: Map<string, number[]> | null = null;
  private classes: Map<string, number[]> | null = null;

  constructor(private readonly doc: LightDocument) {}

  private byTag(): Map<string, number[]> {
    if (this.tags) return this.tags;
    const tags = new Map<string, number[]>();
    this.doc.elements.forEach((element, index) => add(tags, element.tag, index));
    return (this.tags = tags);
  }

  private byId(): Map<string, number[]> {
    if (!this.ids) this.indexAttributes();
    return this.ids as Map<string, number[]>;
  }

  private byAttr(): Map<string, number[]> {
    if (!this.attrs) this.indexAttributes();
    return this.attrs as Map<string, number[]>;
  }

  private indexAttributes(): void {
    const ids = new Map<string, number[]>();
    const attrs = new Map<string, number[]>();
    this.doc.elements.forEach((element, index) => {
      const list = element.attrs;
      for (let k = 0; k < list.length; k += 2) {
        add(attrs, list[k], index);
        if (list[k] === 'id') add(ids, list[k + 1], index);
      }
    });
    this.ids = ids;
    this.attrs = attrs;
  }

  private byClass(): Map<string, number[]> {
    if (this.classes) return this.classes;
    const classes = new Map<string, number[]>();
    this.doc.elements.forEach((element, index) => {
      const list = element.attrs;
      for (let k = 0; k < list.length; k += 2) {
        if (list[k] !== 'class') continue;
        for (const cls of list[k + 1].split(/\s+/)) if (cls) add(classes, cls, index);
      }
    });
    return (this.classes = classes);
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
    const consider = (list: number[] | undefined): void => {
      const length = list ? list.length : 0;
      if (length < best.length) best = list ?? [];
    };
    for (const id of compound.ids) consider(this.byId().get(id));
    for (const cls of compound.classes) consider(this.byClass().get(cls));
    if (compound.tag) consider(this.byTag().get(compound.tag));
    for (const test of compound.attrs) consider(this.byAttr().get(test.name));
    return best;
  }

  private firstCandidates(compound: Compound, all: number): number[] | null {
    if (compound.ids.length) return this.byId().get(compound.ids[0]) ?? [];
    if (compound.classes.length) return this.byClass().get(compound.classes[0]) ?? [];
    if (compound.tag) return this.byTag().get(compound.tag) ?? [];
    if (compound.attrs.length) return this.byAttr().get(compound.attrs[0].name) ?? [];
    return all > 0 ? null : [];
  }
}

function add(map: Map<string, number[]>, key: string, index: number): void {
  const list = map.get(key);
  if (list) list.push(index);
  else map.set(key, [index]);
}

/**
 * Selector evaluation on the light tree, the page's one reading: no second DOM is built (jsdom,
 * once the fallback for selectors the engine could not read, cost 21-93 ms a page just to parse).
 * A selector the engine cannot read was reported at load and matches nothing.
 */
export class DomMatcher {
  private index: ElementIndex | null = null;

  constructor(private readonly doc: LightDocument) {}

  nodes(rule: DomRule): DomNode[] {
    const complexes = rule.complexes;
    return complexes ? this.lightNodes(complexes) : [];
  }

  private lightNodes(complexes: Complex[]): DomNode[] {
    const doc = this.doc;
    this.index ??= new ElementIndex(doc);
    const seen = new Set<number>();
    for (const complex of complexes) {
      const last = complex.compounds[complex.compounds.length - 1];
      const candidates = this.index.candidates(last, doc.elements.length);
      const limit = Math.min(candidates ? candidates.length : doc.elements.length, MAX_DOM_CANDIDATES);
      for (let k = 0; k < limit && seen.size < MAX_DOM_NODES; k++) {
        const index = candidates ? candidates[k] : k;
        if (!seen.has(index) && complexMatches(doc, index, complex)) seen.add(index);
      }
    }
    return [...seen]
      .sort((a, b) => a - b)
      .map((index) => {
        const element = doc.elements[index];
        return {
          attribute: (name: string) => getAttribute(element, name),
          text: () => textContent(doc, element).slice(0, TEXT_CONTENT_LIMIT),
        };
      });
  }
}
