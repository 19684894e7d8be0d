import type { LookupMonth } from '../site-index/site-index.service';

/** JSON texts already rendered, by the months array they render (stored ones are shared: stored-history.ts). */
const rendered = new WeakMap<readonly LookupMonth[], string>();

/**
 * Lookup v1's published answer (GET /lookup/v1/'s 200 body) as JSON text: each month's
 * monthYear, languages and applications, each application's name, categories, versions and hits
 * (GraphQL's slug and confidence stay on GraphQL). Rendered once per months array: a stored
 * lookup's array is the same for every request while the site's stored history is unchanged, and
 * JSON.stringify of its ~7 kB was the largest single cost of a stored lookup in the CPU profile
 * (about 40 µs of the ~450 µs a request cost the event loop, 2026-11-24).
 */
export function lookupV1Json(months: readonly LookupMonth[]): string {
  let json = rendered.get(months);
  if (json === undefined) {
    json = JSON.stringify(
      months.map((month) => ({
        monthYear: month.monthYear,
        languages: month.languages,
        applications: month.applications.map((a) => ({
          name: a.name,
          categories: a.categories,
          versions: a.versions,
          hits: a.hits,
        })),
      })),
    );
    rendered.set(months, json);
  }
  return json;
}
