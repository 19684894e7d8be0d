import type { RawPack } from './raw-pack';

/** A technology present in both packs whose entry differs, and in which fields. */
export interface ChangedTechnology {
  name: string;
  /** The entry's top-level fields that differ (added, removed or another value), sorted. */
  fields: string[];
}

/** What a candidate pack changes against the current one, technology by technology. */
export interface PackDiff {
  /** Technology names only the candidate has, sorted. */
  added: string[];
  /** Technology names only the current pack has, sorted. */
  removed: string[];
  /** Technologies in both whose entries differ, by name. */
  changed: ChangedTechnology[];
  /** Category ids added, removed or changed (any field), sorted as numbers. */
  categories: { added: string[]; removed: string[]; changed: string[] };
}

/**
 * Compares two packs as data: a field counts as changed when its value differs as written (object
 * keys in any order, but list order matters: `cats: [1, 2]` and `[2, 1]` differ, as a pattern string
 * and a one-pattern list do). Pure: where the packs come from is the caller's business.
 */
export function diffPacks(current: RawPack, candidate: RawPack): PackDiff {
  const keys = diffKeys(current.technologies, candidate.technologies);
  const changed: ChangedTechnology[] = [];
  for (const name of keys.both) {
    const fields = changedFields(current.technologies[name], candidate.technologies[name]);
    if (fields.length > 0) changed.push({ name, fields });
  }
  const cats = diffKeys(current.categories, candidate.categories);
  const byNumber = (a: string, b: string) => Number(a) - Number(b) || compare(a, b);
  return {
    added: keys.added,
    removed: keys.removed,
    changed,
    categories: {
      added: cats.added.sort(byNumber),
      removed: cats.removed.sort(byNumber),
      changed: cats.both
        .filter((id) => canonical(current.categories[id]) !== canonical(candidate.categories[id]))
        .sort(byNumber),
    },
  };
}

function diffKeys(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
): { added: string[]; removed: string[]; both: string[] } {
  const inA = Object.keys(a);
  const inB = new Set(Object.keys(b));
  return {
    added: Object.keys(b)
      .filter((k) => !Object.hasOwn(a, k))
      .sort(compare),
    removed: inA.filter((k) => !inB.has(k)).sort(compare),
    both: inA.filter((k) => inB.has(k)).sort(compare),
  };
}

function changedFields(a: unknown, b: unknown): string[] {
  const left = (a ?? {}) as Record<string, unknown>;
  const right = (b ?? {}) as Record<string, unknown>;
  const fields = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...fields].filter((f) => canonical(left[f]) !== canonical(right[f])).sort(compare);
}

/** JSON with object keys sorted: equal values give equal text whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => compare(x, y)))
      : v,
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
