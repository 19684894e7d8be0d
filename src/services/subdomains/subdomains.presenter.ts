import { z } from 'zod';

const SeenShape = z.strictObject({
  createdAt: z.number().int().describe('UNIX seconds, first seen'),
  updatedAt: z.number().int().describe('UNIX seconds, last seen'),
});

/** One requested domain of GET /v2/subdomains/: `subdomains` keyed by name, `moreAfter` only when more exist. */
export const SubdomainResultShape = z.strictObject({
  domain: z.string().describe('The requested domain, normalised to its registrable domain'),
  subdomains: z
    .record(z.string(), SeenShape)
    .describe('Subdomain name → first and last time the service saw it, in name (byte) order'),
  moreAfter: z
    .string()
    .describe(
      'Present only when more subdomains exist: pass it as `after` to continue this domain exactly where ' +
        'the page ended (no repeats or gaps while names are added)',
    )
    .optional(),
});

export const SubdomainResultsShape = z.array(SubdomainResultShape).min(1).max(10);

/** A page of one domain, as the resolver returns it (GraphQL's list of names). */
export interface SubdomainPageSource {
  domain: string;
  subdomains: readonly { name: string; createdAt: number; updatedAt: number }[];
  moreAfter: string | null;
}

export function toSubdomainResult(page: SubdomainPageSource): z.output<typeof SubdomainResultShape> {
  return {
    domain: page.domain,
    subdomains: Object.fromEntries(
      page.subdomains.map((s) => [s.name, { createdAt: s.createdAt, updatedAt: s.updatedAt }]),
    ),
    ...(page.moreAfter === null ? {} : { moreAfter: page.moreAfter }),
  };
}
