import { ValidationError } from '../errors';
import { parseHttpUrl } from '../services/url-input';
import { FIELD_SETS, FieldSet } from '../services/page-attributes';

/** 1-10 http(s) URLs (the spec's `urls`), each validated and named in the error. */
export function parseUrlList(urls: readonly string[]): string[] {
  if (urls.length < 1 || urls.length > 10)
    throw new ValidationError('urls', 'urls must hold one to ten URLs');
  return urls.map((u) => parseHttpUrl('urls', u));
}

/** The `sets` values: the field sets the service fills, or `all`. */
export function parseFieldSets(sets: readonly string[]): FieldSet[] {
  const out = new Set<FieldSet>();
  for (const raw of sets) {
    const value = raw.trim().toLowerCase();
    if (!value) continue;
    if (value === 'all') return [...FIELD_SETS];
    if (!(FIELD_SETS as readonly string[]).includes(value)) {
      throw new ValidationError(
        'sets',
        `sets: unknown field set ${JSON.stringify(value)}; known: ${FIELD_SETS.join(', ')}, all`,
      );
    }
    out.add(value as FieldSet);
  }
  return [...out];
}
