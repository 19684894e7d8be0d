import type { Complex } from './css-selector';

/**
 * The keys a page's element index lists for a selector, each once: the tags of the complexes' last
 * compounds (their candidates), and the ids, classes and attribute names of every compound (what
 * rules a complex out before its elements are tried). Worked out once per selector, so that a page
 * registers a rule by reading four short arrays rather than walking its parse tree, whose objects
 * are mostly out of the cache by the time the DOM rules run.
 */
export interface SelectorKeys {
  readonly tags: readonly string[];
  readonly ids: readonly string[];
  readonly classes: readonly string[];
  readonly names: readonly string[];
}

/**
 * `readNames`: attribute names whose values a rule reads off the selector's elements, listed too so
 * that a page without any of them is known to give the rule nothing to read.
 */
export function selectorKeysOf(
  complexes: readonly Complex[],
  readNames: readonly string[] = [],
): SelectorKeys {
  const tags = new Set<string>();
  const ids = new Set<string>();
  const classes = new Set<string>();
  const names = new Set<string>();
  for (const complex of complexes) {
    const compounds = complex.compounds;
    const tag = compounds[compounds.length - 1].tag;
    if (tag) tags.add(tag);
    for (const compound of compounds) {
      for (const id of compound.ids) ids.add(id);
      for (const cls of compound.classes) classes.add(cls);
      for (const test of compound.attrs) names.add(test.name);
    }
  }
  if (complexes.length > 0) for (const name of readNames) names.add(name);
  return { tags: [...tags], ids: [...ids], classes: [...classes], names: [...names] };
}
