import type { JsonSchema } from '../json-schema';
import { booleanParam, csvParam, integerParam, stringParam } from '../params';
import type { RestRoute } from '../route';

interface SubdomainData {
  domain: string;
  subdomains: Array<{ name: string; createdAt: number; updatedAt: number }>;
  moreAfter: string | null;
}

const resultSchema: JsonSchema = {
  type: 'object',
  required: ['domain', 'subdomains'],
  additionalProperties: false,
  properties: {
    domain: { type: 'string', description: 'The requested domain, normalised to its registrable domain' },
    subdomains: {
      type: 'object',
      description: 'Subdomain name → first and last time the service saw it, in name (byte) order',
      additionalProperties: {
        type: 'object',
        required: ['createdAt', 'updatedAt'],
        additionalProperties: false,
        properties: {
          createdAt: { type: 'integer', description: 'UNIX seconds, first seen' },
          updatedAt: { type: 'integer', description: 'UNIX seconds, last seen' },
        },
      },
    },
    moreAfter: {
      type: 'string',
      description:
        'Present only when more subdomains exist: pass it as `after` to continue this domain exactly where ' +
        'the page ended (no repeats or gaps while names are added)',
    },
  },
};

/** The body the spec documents: `subdomains` is an object keyed by name, `moreAfter` only when more exist. */
function toBody(result: SubdomainData): Record<string, unknown> {
  const subdomains = Object.fromEntries(
    result.subdomains.map((s) => [s.name, { createdAt: s.createdAt, updatedAt: s.updatedAt }]),
  );
  return {
    domain: result.domain,
    subdomains,
    ...(result.moreAfter === null ? {} : { moreAfter: result.moreAfter }),
  };
}

const findRoute: RestRoute = {
  method: 'GET',
  path: '/v2/subdomains',
  operationId: 'findSubdomains',
  summary: 'Enumerate subdomains (Business plan; 1 credit per 10 subdomains returned, rounded up)',
  description:
    'Subdomains the service has seen under each requested domain: host names observed by crawls (links, ' +
    "assets, redirects, CSP/CORS headers, certificate names), the domain's DNS records, and optional " +
    'background discovery. A domain asked about for the first time has its DNS records read at once and is ' +
    'examined further in the background, so a later request may return more. Names that no longer resolve ' +
    'are kept but only returned with includeUnresolvable=true. Paging: `after` continues the domain the ' +
    'cursor belongs to; the other requested domains start from their first page.',
  tag: 'Subdomain finder',
  family: 'subdomains',
  params: [
    csvParam({
      name: 'domains',
      required: true,
      description: 'One to ten comma-separated domain names; each is reduced to its registrable domain',
      minItems: 1,
      maxItems: 10,
      itemMaxLength: 253,
    }),
    integerParam({
      name: 'limit',
      description: 'Subdomains per domain: a multiple of 10 from 10 to 1000',
      min: 10,
      max: 1000,
      multipleOf: 10,
      default: 100,
    }),
    stringParam({
      name: 'after',
      description: 'The moreAfter value of a previous response',
      maxLength: 400,
      pattern: /^[A-Za-z0-9_-]+$/,
      patternText: 'must be a moreAfter value returned by this endpoint',
    }),
    booleanParam({
      name: 'includeUnresolvable',
      description: 'Also return names that no longer resolve',
      default: false,
    }),
  ],
  operation: `query Subdomains($domains: [String!]!, $limit: Int, $after: String, $includeUnresolvable: Boolean) {
    subdomains(domains: $domains, limit: $limit, after: $after, includeUnresolvable: $includeUnresolvable) {
      domain subdomains { name createdAt updatedAt } moreAfter
    }
  }`,
  variables: (values) => ({
    domains: values.domains,
    limit: values.limit ?? null,
    after: values.after ?? null,
    includeUnresolvable: values.includeUnresolvable ?? null,
  }),
  respond: (data) => ({ status: 200, body: (data.subdomains as SubdomainData[]).map(toBody) }),
  responses: {
    200: {
      description: 'One subdomain result per requested domain, in the order requested (duplicates collapsed)',
      schema: { type: 'array', minItems: 1, maxItems: 10, items: resultSchema },
    },
  },
};

export const SUBDOMAIN_ROUTES: RestRoute[] = [findRoute];
