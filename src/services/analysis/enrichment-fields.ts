import type { EnrichmentSet, SiteEnrichment } from '../../enrichment';

/** A union of object types as the one object type holding all their fields. */
type AllOf<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/**
 * The enriched record as the published answers carry it: the requested field sets side by side on
 * one flat object (the spec's "Enriched lookup record"). Lookup v2, Live v2 and Crawl v2 (`sets=`),
 * their callbacks and their GraphQL types all read this one shape.
 */
export type EnrichmentFields = AllOf<SiteEnrichment[EnrichmentSet]>;

/** The requested sets of a stored record, flattened; a set the record lacks adds nothing. */
export function flattenSets(
  enrichment: SiteEnrichment | null,
  sets: readonly EnrichmentSet[],
): EnrichmentFields {
  const out: EnrichmentFields = {};
  if (!enrichment) return out;
  for (const set of sets) Object.assign(out, enrichment[set] ?? {});
  return out;
}
