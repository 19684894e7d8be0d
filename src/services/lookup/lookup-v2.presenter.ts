import type { EnrichmentFields } from '../analysis/enrichment-fields';
import type { LookupTechnology, LookupTechnologyMonth } from './stored-site-reader';

/** What a Lookup v2 URL came to: answered from the index, analysed now, accepted for a crawl, or failed. */
export type SiteLookupState = 'FOUND' | 'ANALYSED' | 'ACCEPTED' | 'FAILED';

/**
 * One URL of a Lookup v2 answer in its full form: the service's result, the GraphQL type's fields
 * (the REST facade reads this very shape back from GraphQL), and the callback's source.
 */
export interface SiteLookup extends EnrichmentFields {
  url: string;
  state: SiteLookupState;
  /** The current technologies (squash=true), or those stored for a site being crawled. */
  technologies: LookupTechnology[];
  /** One entry per month of history (squash=false), else null. */
  months: LookupTechnologyMonth[] | null;
  errors: string[];
}

/** A SiteLookup as GraphQL returns it: absent values are nulls. */
export type NullableSiteLookup = { [key in keyof SiteLookup]?: SiteLookup[key] | null };

const OWN_FIELDS = new Set(['url', 'state', 'technologies', 'months', 'errors', '__typename']);

/**
 * The published JSON of one Lookup v2 URL, for the REST answer and the callbacks alike:
 * `{url, errors}`, `{url, crawl: true}` (with the stored technologies, if any), or
 * `{url, technologies, ...fields}` (`{url, results: [{monthYear, technologies}], ...fields}` with
 * squash=false). Technologies carry the contract's fields only (confidence stays on GraphQL); a
 * field without a value is left out, never sent as null.
 */
export function toLookupV2Object(lookup: SiteLookup | NullableSiteLookup): Record<string, unknown> {
  const url = lookup.url ?? '';
  if (lookup.state === 'FAILED') return { url, errors: lookup.errors ?? [] };
  const technologies = (lookup.technologies ?? []).map(toTechnologyObject);
  if (lookup.state === 'ACCEPTED')
    return technologies.length > 0 ? { url, crawl: true, technologies } : { url, crawl: true };
  const out: Record<string, unknown> = { url };
  if (lookup.months) {
    out.results = lookup.months.map((month) => ({
      monthYear: month.monthYear,
      technologies: month.technologies.map(toTechnologyObject),
    }));
  } else {
    out.technologies = technologies;
  }
  for (const [key, value] of Object.entries(lookup)) {
    if (OWN_FIELDS.has(key)) continue;
    const kept = withoutNulls(value);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

/** Technologies' JSON texts, by the (frozen, shared) technology they render: stored-site-reader.ts. */
const technologyTexts = new WeakMap<LookupTechnology, string>();

/**
 * toLookupV2Object's answer as JSON text. A stored site answered with its current technologies and
 * no field sets (the usual stored lookup) is written from each technology's text, kept per
 * technology: the reader hands out the same frozen objects while the site's stored version holds,
 * so a stored Lookup v2 no longer builds and serialises every Technology object of its answer per
 * request. Anything else is serialised whole.
 */
export function lookupV2Json(lookup: SiteLookup): string {
  const plain =
    (lookup.state === 'FOUND' || lookup.state === 'ANALYSED') &&
    lookup.months === null &&
    Object.keys(lookup).every((key) => OWN_FIELDS.has(key));
  if (!plain) return JSON.stringify(toLookupV2Object(lookup));
  const technologies = lookup.technologies.map((technology) => {
    let text = technologyTexts.get(technology);
    if (text === undefined) {
      text = JSON.stringify(toTechnologyObject(technology));
      technologyTexts.set(technology, text);
    }
    return text;
  });
  return `{"url":${JSON.stringify(lookup.url)},"technologies":[${technologies.join(',')}]}`;
}

/** The Technology object of the contract (Live v2, Crawl v2, enriched lookup). */
export function toTechnologyObject(
  t: Omit<LookupTechnology, 'cpe' | 'trafficRank'> & { cpe?: string | null; trafficRank?: number | null },
): Record<string, unknown> {
  return {
    slug: t.slug,
    name: t.name,
    ...(t.cpe ? { cpe: t.cpe } : {}),
    versions: t.versions,
    categories: t.categories.map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
    ...(t.trafficRank !== null && t.trafficRank !== undefined ? { trafficRank: t.trafficRank } : {}),
    confirmedAt: t.confirmedAt,
  };
}

/** Drops nulls (GraphQL's absent values) and empty lists, recursively; undefined when nothing is left. */
export function withoutNulls(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutNulls).filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([key]) => key !== '__typename')
      .map(([key, v]) => [key, withoutNulls(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length > 0 ? Object.fromEntries(entries) : undefined;
  }
  return value;
}
