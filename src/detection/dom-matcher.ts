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

/** Indexes of the light tree by what selectors key on; built once per page, on first use. */
class ElementIndex {
  readonly byTag = new Map<string, number[]>();
  readonly byId = new Map<string, number[]>();
  readonly byClass = new Map<string, number[]>();
  readonly byAttr = new Map<string, number[]>();

  constructor(doc: LightDocument) {
    const add = (map: Map<string, number[]>, key: string, index: number): void => {
      const list = map.get(key);
      if (list) list.push(index);
      else map.set(key, [index]);
    };
    doc.elements.forEach((element, index) => {
      add(this.byTag, element.tag, index);
      const attrs = element.attrs;
      for (let k = 0; k < attrs.length; k += 2) {
        const name = attrs[k];
        add(this.byAttr, name, index);
        if (name === 'id') add(this.byId, attrs[k + 1], index);
        else if (name === 'class') {
          for (const cls of attrs[k + 1].split(/\s+/)) if (cls) add(this.byClass, cls, index);
        }
      }
    });
  }

  candidates(compound: Compound, all: number): number[] | null {
    if (compound.ids.length) return this.byId.get(compound.ids[0]) ?? [];
    if (compound.classes.length) return this.byClass.get(compound.classes[0]) ?? [];
    if (compound.tag) return this.byTag.get(compound.tag) ?? [];
    if (compound.attrs.length) return this.byAttr.get(compound.attrs[0].name) ?? [];
    return all > 0 ? null : [];
  }
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
