import { ENRICHMENT_SETS, type EnrichmentSet, type SiteEnrichment } from '../../enrichment';

/**
 * Which field sets of a site hold at least one value, as a bit mask (bit i = ENRICHMENT_SETS[i]):
 * stored on the site row so that lead lists can require sets (`requiredSets`) with one condition.
 * The order of ENRICHMENT_SETS is therefore part of the stored format: append, never reorder.
 */
export function setsMaskOf(enrichment: SiteEnrichment): number {
  let mask = 0;
  ENRICHMENT_SETS.forEach((set, bit) => {
    // Every indexed site has events (when it was first seen, analysed, tried): they come from the
    // site row, not from what an analysis found.
    if (set === 'events' || hasValue(enrichment[set])) mask |= 1 << bit;
  });
  return mask;
}

/** The mask a list of required sets needs (every bit must be set on a site). */
export function setsMaskFor(sets: readonly EnrichmentSet[]): number {
  return sets.reduce((mask, set) => mask | (1 << ENRICHMENT_SETS.indexOf(set)), 0);
}

function hasValue(set: object): boolean {
  return Object.values(set).some(
    (value) => value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0),
  );
}
