import { parseSelectorList, type Complex } from './css-selector';
import { selectorKeysOf, type SelectorKeys } from './selector-keys';
import type { Pattern } from './pattern';

export interface DomAttribute {
  name: string;
  pattern: Pattern;
}

/**
 * One DOM pattern of a technology. Its selector's parse tree is built on the first page whose markup
 * passes the rule's prefilter (most of the ~1,800 rules never do in a process's life); start-up only
 * needs the prefilter literals, which a cheap scan of the selector gives.
 */
export class DomRule {
  private parsed: Complex[] | null | undefined;

  constructor(
    readonly tech: number,
    /** The selector as written (tags removed). */
    readonly selector: string,
    /** The parsed selector when start-up already had it (null: the engine cannot read it). */
    complexes: Complex[] | null | undefined,
    /** One of these must occur in the markup; null when the selector names nothing long enough. */
    readonly literals: string[] | null,
    readonly exists: Pattern | null,
    readonly attributes: DomAttribute[],
    readonly text: Pattern | null,
  ) {
    this.parsed = complexes;
  }

  private keys: SelectorKeys | undefined;

  /**
   * What a page's element index must list for this rule (none when the engine cannot read it): its
   * selector's keys and the attribute names it reads.
   */
  get indexKeys(): SelectorKeys {
    return (this.keys ??= selectorKeysOf(
      this.complexes ?? [],
      this.attributes.map((attribute) => attribute.name),
    ));
  }

  /**
   * Whether the rule reads its elements' texts or attribute values, some of which the page has
   * (`hasAttribute`): else all it needs is whether the selector matches anything.
   */
  readsNodes(hasAttribute: (name: string) => boolean): boolean {
    if (this.text !== null) return true;
    for (const attribute of this.attributes) if (hasAttribute(attribute.name)) return true;
    return false;
  }

  /** Parsed selector, or null when the engine cannot read it (the rule then never matches). */
  get complexes(): Complex[] | null {
    if (this.parsed === undefined) {
      try {
        this.parsed = parseSelectorList(this.selector);
      } catch {
        this.parsed = null; // the scan accepts only what the parser does
      }
    }
    return this.parsed;
  }
}
