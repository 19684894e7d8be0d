import { ValidationError } from '../errors';
import { parseHttpUrl } from '../services/platform/url-input';
import { ENRICHMENT_SETS, type EnrichmentSet } from '../enrichment';

/** 1-10 http(s) URLs (the spec's `urls`), each validated and named in the error. */
export function parseUrlList(urls: readonly string[]): string[] {
  if (urls.length < 1 || urls.length > 10)
    throw new ValidationError('urls', 'urls must hold one to ten URLs');
  return urls.map((u) => parseHttpUrl('urls', u));
}

/** The `sets` values: the field sets the service fills, or `all`. */
export function parseFieldSets(sets: readonly string[]): EnrichmentSet[] {
  const out = new Set<EnrichmentSet>();
  for (const raw of sets) {
    const value = raw.trim().toLowerCase();
    if (!value) continue;
    if (value === 'all') return [...ENRICHMENT_SETS];
    if (!(ENRICHMENT_SETS as readonly string[]).includes(value)) {
      throw new ValidationError(
        'sets',
        `sets: unknown field set ${JSON.stringify(value)}; known: ${ENRICHMENT_SETS.join(', ')}, all`,
      );
    }
    out.add(value as EnrichmentSet);
  }
  return [...out];
}
