import { toTechnology, type TechnologyObject } from './analysis-shapes';
import { withoutNulls } from '../lookup/lookup-v2.presenter';

/** One URL's analysis, from the service (state in lower case) or read back from GraphQL (enum names). */
export interface LiveAnalysisSource {
  url: string;
  state: string;
  technologies: TechnologyObject[];
  errors: { message: string }[];
  [field: string]: unknown;
}

const OWN_FIELDS = new Set(['url', 'state', 'technologies', 'errors', 'render', 'skipped', '__typename']);

/**
 * The Live v2 / Crawl v2 object of one URL, for the synchronous answer and the callbacks alike:
 * `{url, crawl: true}`, `{url, errors: [text]}`, or `{url, technologies, ...set fields}` (a field
 * without a value is left out).
 */
export function toLiveV2Object(a: LiveAnalysisSource): Record<string, unknown> {
  const state = a.state.toLowerCase();
  if (state === 'accepted') return { url: a.url, crawl: true };
  if (state === 'failed') return { url: a.url, errors: a.errors.map((e) => e.message) };
  const out: Record<string, unknown> = {
    url: a.url,
    technologies: a.technologies.map((t) => toTechnology(t, t.confirmedAt)),
  };
  for (const [field, value] of Object.entries(a)) {
    if (OWN_FIELDS.has(field)) continue;
    const kept = withoutNulls(value);
    if (kept !== undefined) out[field] = kept;
  }
  return out;
}
