import { z } from 'zod';
import { normaliseRequestedDomain } from '../../subdomains';
import { field } from '../platform/request-schema';
import {
  SUBDOMAIN_LIMIT_DEFAULT,
  SUBDOMAIN_LIMIT_MAX,
  SUBDOMAIN_LIMIT_STEP,
  SUBDOMAIN_MAX_DOMAINS,
} from './subdomain-request';

/** GET /v2/subdomains/: the fields; which domain a cursor continues is the service's rule (subdomain-request.ts). */
export const SubdomainsRequest = z.object({
  domains: field.list(field.item(253).transform(field.parsedBy(normaliseRequestedDomain)), {
    min: 1,
    max: SUBDOMAIN_MAX_DOMAINS,
    required: true,
    description: 'One to ten comma-separated domain names; each is reduced to its registrable domain',
  }),
  limit: field.integer({
    min: SUBDOMAIN_LIMIT_STEP,
    max: SUBDOMAIN_LIMIT_MAX,
    multipleOf: SUBDOMAIN_LIMIT_STEP,
    default: SUBDOMAIN_LIMIT_DEFAULT,
    description: 'Subdomains per domain: a multiple of 10 from 10 to 1000',
  }),
  after: field.text({
    maxLength: 400,
    pattern: /^[A-Za-z0-9_-]+$/,
    patternText: 'must be a moreAfter value returned by this endpoint',
    description: 'The moreAfter value of a previous response',
  }),
  includeUnresolvable: field.flag({
    default: false,
    description: 'Also return names that no longer resolve',
  }),
});

export type SubdomainsInput = z.output<typeof SubdomainsRequest>;

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
