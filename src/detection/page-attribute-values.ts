/**
 * Whether any value of an attribute name on a page holds a text, by one `includes` on the page's
 * values of that name joined, instead of trying every element. A selector's attribute-value tests
 * (`=`, `~=`, `|=`, `^=`, `$=`, `*=`) each need the tested text inside the element's value, so a
 * complex testing for a text no value holds matches nothing. The values are the tree's decoded
 * ones, the very strings the element tests read, so an entity-encoded value is ruled in or out
 * exactly as those tests would read it; the markup (where `&#117;` stands for `u`) is never
 * consulted. A text found across the join of two values only lets the elements be tried: the
 * answer "no" is always exact.
 */
export class PageAttributeValues {
  private readonly joined = new Map<string, string>();

  /**
   * False when no value of `values` (all the page's values of attribute `name`) holds `text`
   * (lowercased first with `insensitive`, as the attribute test does with both sides).
   */
  holds(values: readonly string[], name: string, text: string, insensitive: boolean): boolean {
    if (values.length === 0) return false;
    if (values.length === 1 && !insensitive) return values[0].includes(text);
    const key = insensitive ? `${name} i` : name;
    let all = this.joined.get(key);
    if (all === undefined) {
      // Every value, repeats included (a menu's items repeat their classes): dropping repeats hashes
      // each value, which costs more than the longer join's few reads. With `i`, each value
      // lowercased alone: the strings the attribute test compares.
      all = (insensitive ? values.map((value) => value.toLowerCase()) : values).join('\n');
      this.joined.set(key, all);
    }
    return all.includes(insensitive ? text.toLowerCase() : text);
  }
}
