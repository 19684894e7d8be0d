import { z } from 'zod';
import { ENRICHMENT_SETS, type EnrichmentSet } from '../../enrichment';
import { ValidationError } from '../../errors';
import { field } from '../platform/request-schema';

/*
 * The request schemas of the analysis family (Analyze v1, Live v2, Crawl v2, Crawl v1) and of the
 * lookups, with the fields they share: `urls`, `callback_url`, `sets`.
 */

/** The spec's `urls`: one to ten http(s) URLs. */
export const urlsField = (description: string) =>
  field.list(field.url({ description: 'A website URL', required: true }), {
    min: 1,
    max: 10,
    required: true,
    description,
  });

export const callbackUrlField = <R extends boolean>(required: R, description: string) =>
  field.text({ maxLength: 2048, rest: 'callback_url', required, description });

/** A field set's name, or `all`. */
function setName(value: string): EnrichmentSet | 'all' {
  const name = value.toLowerCase();
  if (name === 'all' || (ENRICHMENT_SETS as readonly string[]).includes(name))
    return name as EnrichmentSet | 'all';
  throw new ValidationError(
    'sets',
    `sets: unknown field set ${JSON.stringify(name)}; known: ${ENRICHMENT_SETS.join(', ')}, all`,
  );
}

/** The spec's `sets`: field sets by name, or `all` (every set); each set once, in the order given. */
export const setsField = (description: string) =>
  field.list(field.item(20).transform(field.parsedBy(setName)), {
    max: ENRICHMENT_SETS.length + 1,
    description,
  });

/** The sets a request's `sets` asks for (`all` is every set). */
export function setsOf(names: readonly (EnrichmentSet | 'all')[] | undefined): EnrichmentSet[] {
  if (!names) return [];
  if (names.includes('all')) return [...ENRICHMENT_SETS];
  return [...new Set(names as EnrichmentSet[])];
}

export const AnalyzeRequest = z.object({
  url: field.url({ required: true, description: 'The page to analyse' }),
  render: field.choice(['off', 'auto', 'always'] as const, {
    graphqlType: 'RenderChoice',
    description:
      'Browser rendering for js/xhr technologies (an addition to the published interface): off, auto (the server default RENDER decides when) or always',
  }),
});

const liveRequest = (urls: string, recursive: string) =>
  z.object({
    urls: urlsField(urls),
    callbackUrl: callbackUrlField(false, 'Required when recursive is true (the default)'),
    recursive: field.flag({ default: true, description: recursive }),
    sets: setsField(`Extra field sets: ${ENRICHMENT_SETS.join(', ')}, or all (as the index stored them)`),
  });

export const LiveRequest = liveRequest(
  'One to ten comma-separated website URLs; exactly one when recursive is false',
  'false: analyse one page synchronously',
);
export const CrawlRequest = liveRequest(
  'One to ten comma-separated website URLs; exactly one when recursive is false',
  'true: crawl up to 25 pages per URL',
);
export type LiveRequestInput = z.output<typeof LiveRequest>;

export const CrawlV1Request = z.object({
  url: field.url({ required: true, description: 'The first page to analyse' }),
  callbackUrl: callbackUrlField(true, 'Receives {url, applications, status} (or status error with errors)'),
});

export const LookupV1Request = z.object({
  url: field.url({ required: true, description: 'The site to look up' }),
  callbackUrl: callbackUrlField(false, 'Where to POST the result when the site is not indexed yet'),
  denoise: field.flag({ default: true, description: 'Exclude low-confidence results' }),
});
