/**
 * Whether any value of an attribute name on a page holds a text, instead of trying every element. A
 * selector's attribute-value tests (`=`, `~=`, `|=`, `^=`, `$=`, `*=`) each need the tested text
 * inside the element's value, so a complex testing for a text no value holds matches nothing. The
 * values are the tree's decoded ones, the very strings the element tests read, so an entity-encoded
 * value is ruled in or out exactly as those tests would read it; the markup (where `&#117;` stands
 * for `u`) is never consulted.
 *
 * A page asks about a name once or a few times, and those questions are answered value by value,
 * stopping at the first that holds the text: joining them would copy every value for a few
 * searches. A name asked about more often is searched in its values joined (once, then kept), one
 * `includes` per chunk: value by value, a page of many values asked about by many rules would pay a
 * call per value each time. A text found across the join of two values only lets the elements be
 * tried: the answer "no" is always exact.
 */
export class PageAttributeValues {
  private readonly joined = new Map<string, string[]>();
  /** How many questions about each name were answered value by value. */
  private readonly searched = new Map<string, number>();

  /**
   * False when no value of `values` (all the page's values of attribute `name`) holds `text`
   * (lowercased first with `insensitive`, as the attribute test does with both sides).
   */
  holds(values: readonly string[], name: string, text: string, insensitive: boolean): boolean {
    if (values.length === 0) return false;
    const key = insensitive ? `${name} i` : name;
    let chunks = this.joined.get(key);
    if (chunks === undefined) {
      const searched = this.searched.get(key) ?? 0;
      if (!insensitive && searched < SEARCHED_APART) {
        this.searched.set(key, searched + 1);
        return someHolds(values, text);
      }
      // Every value, repeats included (a menu's items repeat their classes): dropping repeats hashes
      // each value, which costs more than the longer join's few reads. With `i`, each value
      // lowercased alone: the strings the attribute test compares.
      chunks = joinedInChunks(insensitive ? values.map((value) => value.toLowerCase()) : values);
      this.joined.set(key, chunks);
    }
    const wanted = insensitive ? text.toLowerCase() : text;
    for (const chunk of chunks) if (chunk.includes(wanted)) return true;
    return false;
  }
}

/** Questions about a name answered value by value before its values are joined. */
const SEARCHED_APART = 4;

function someHolds(values: readonly string[], text: string): boolean {
  for (let k = 0; k < values.length; k++) if (values[k].includes(text)) return true;
  return false;
}

/**
 * Characters past which the values joined so far close a chunk: a joined string stays short of V8's
 * large-object space, where each string of a page with thousands of classes (or an image's `src`
 * holding a data URL) cost as much as the rest of the page's DOM rules.
 */
const CHUNK = 16_384;

/** The values joined by newlines, in chunks of whole values (a longer value is a chunk of its own). */
function joinedInChunks(values: readonly string[]): string[] {
  const chunks: string[] = [];
  let from = 0;
  let length = 0;
  for (let k = 0; k < values.length; k++) {
    length += values[k].length + 1;
    if (length < CHUNK) continue;
    chunks.push(values.slice(from, k + 1).join('\n'));
    from = k + 1;
    length = 0;
  }
  if (from < values.length) chunks.push(values.slice(from).join('\n'));
  return chunks;
}
