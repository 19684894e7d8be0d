/**
 * Whether any value of an attribute name on a page holds a text, by an `includes` per value of that
 * name until one holds it, instead of trying every element. A selector's attribute-value tests
 * (`=`, `~=`, `|=`, `^=`, `$=`, `*=`) each need the tested text inside the element's value, so a
 * complex testing for a text no value holds matches nothing. The values are the tree's decoded
 * ones, the very strings the element tests read, so an entity-encoded value is ruled in or out
 * exactly as those tests would read it; the markup (where `&#117;` stands for `u`) is never
 * consulted. The values are not joined to be searched at once: a page asks about a name about once,
 * the join copies every value where the search mostly stops at an early one, and a join of many
 * values (or of an image's data URL) is a long string of V8's large-object space.
 */
export class PageAttributeValues {
  /** Each name's values lowercased, for the `i` tests (which lowercase both sides). */
  private readonly lowered = new Map<string, string[]>();

  /**
   * False when no value of `values` (all the page's values of attribute `name`) holds `text`
   * (lowercased first with `insensitive`, as the attribute test does with both sides).
   */
  holds(values: readonly string[], name: string, text: string, insensitive: boolean): boolean {
    if (!insensitive) return someHolds(values, text);
    let lowered = this.lowered.get(name);
    if (lowered === undefined) {
      lowered = values.map((value) => value.toLowerCase());
      this.lowered.set(name, lowered);
    }
    return someHolds(lowered, text.toLowerCase());
  }
}

function someHolds(values: readonly string[], text: string): boolean {
  for (let k = 0; k < values.length; k++) if (values[k].includes(text)) return true;
  return false;
}
