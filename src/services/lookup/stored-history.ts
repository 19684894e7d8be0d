import { deepFreeze } from '../../platform/deep-freeze';
import type { LookupMonth } from '../site-index/site-index.service';
import { HELD_BYTES_PER_JSON_BYTE } from '../platform/held-bytes';

/**
 * A site's assembled Lookup v1 history as kept in memory (see SiteIndexService.lookup), and its
 * views by confidence threshold, each made once: every stored lookup of the site at that threshold
 * gets the same frozen array back (the answer's JSON text is kept per array: lookup.contract.ts).
 * Frozen because one array now serves many requests: nothing may change it after the first.
 */
export class StoredHistory {
  private readonly views = new Map<number, readonly LookupMonth[]>();

  /** An estimate of the memory it holds, views and rendered answers included (for the cache's bound). */
  readonly heldBytes: number;

  constructor(private readonly months: readonly LookupMonth[]) {
    deepFreeze(months);
    this.heldBytes = HELD_BYTES_PER_JSON_BYTE * JSON.stringify(months).length;
  }

  get empty(): boolean {
    return this.months.length === 0;
  }

  /** The months with only the technologies detected at least at `minConfidence`. */
  view(minConfidence: number): readonly LookupMonth[] {
    const known = this.views.get(minConfidence);
    if (known) return known;
    const view: readonly LookupMonth[] = this.months.map((month) => ({
      ...month,
      applications: month.applications.filter((a) => a.confidence >= minConfidence),
    }));
    // The months' and applications' own arrays and objects are the frozen history's.
    for (const month of view) Object.freeze(Object.freeze(month).applications);
    this.views.set(minConfidence, Object.freeze(view));
    return view;
  }
}
