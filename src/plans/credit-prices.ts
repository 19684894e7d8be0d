import type { Family } from './plan-catalog';

/**
 * Credit prices per endpoint: the one table, mirrored in the README. Prices are integers.
 * `unit` says what one `credits` buys; the service multiplies by the number of units in a request.
 */
export interface CreditPrice {
  family: Family;
  endpoint: string;
  credits: number;
  unit: string;
}

export const CREDIT_PRICES = {
  analyze: { family: 'analyze', endpoint: 'GET /analyze/v1/', credits: 1, unit: 'successful analysis' },
  liveUrl: { family: 'live', endpoint: 'GET /live/v2/', credits: 1, unit: 'URL analysed (one page)' },
  liveCrawl: {
    family: 'live',
    endpoint: 'GET /live/v2/ (recursive)',
    credits: 5,
    unit: 'URL crawled (up to 25 pages)',
  },
  crawlV2Url: { family: 'crawl-v2', endpoint: 'GET /crawl/v2/', credits: 1, unit: 'URL analysed (one page)' },
  crawlV2Crawl: {
    family: 'crawl-v2',
    endpoint: 'GET /crawl/v2/ (recursive)',
    credits: 5,
    unit: 'URL crawled (up to 25 pages)',
  },
  crawlV1: {
    family: 'crawl-v1',
    endpoint: 'GET /crawl/v1/',
    credits: 5,
    unit: 'crawl accepted (up to 25 pages)',
  },
  lookupHit: {
    family: 'lookup',
    endpoint: 'GET /lookup/v1/',
    credits: 1,
    unit: 'lookup answered from the index (200)',
  },
  lookupIndex: {
    family: 'lookup',
    endpoint: 'GET /lookup/v1/ (202)',
    credits: 5,
    unit: 'unseen site crawled and called back',
  },
  lookupV2: {
    family: 'lookup',
    endpoint: 'GET /v2/lookup/',
    credits: 1,
    unit: 'URL answered (from the index, or one page analysed now)',
  },
  lookupV2Crawl: {
    family: 'lookup',
    endpoint: 'GET /v2/lookup/ (crawl)',
    credits: 5,
    unit: 'URL crawled and called back (recursive, unseen or live); refunded when the site cannot be analysed',
  },
  sbom: {
    family: 'lookup',
    endpoint: 'GET /v2/sbom/',
    credits: 1,
    unit: 'SBOM of a site found in the index (200), priced as a stored lookup; a 404 is free',
  },
  verify: { family: 'verify', endpoint: 'GET /v2/verify/', credits: 1, unit: 'email address' },
  subdomains: {
    family: 'subdomains',
    endpoint: 'GET /v2/subdomains/',
    credits: 1,
    unit: '10 subdomains returned (rounded up)',
  },
  changes: {
    family: 'changes',
    endpoint: 'GET /v2/changes/',
    credits: 1,
    unit: '10 changes returned (rounded up; an empty page is free)',
  },
  exposure: {
    family: 'lookup',
    endpoint: 'GET /v2/exposure/',
    credits: 1,
    unit: 'URL answered from the index (its technologies and their vulnerabilities)',
  },
  exposureSites: {
    family: 'changes',
    endpoint: 'GET /v2/exposure/sites/',
    credits: 1,
    unit: '10 sites returned (rounded up; an empty page is free)',
  },
  siteTimeline: {
    family: 'changes',
    endpoint: 'GraphQL site(domain)',
    credits: 1,
    unit: 'site found in the index (its timeline; its changes are charged as GET /v2/changes/)',
  },
  monitorRecrawl: {
    family: 'monitors',
    endpoint: 'monitor re-analysis (freshness scheduler)',
    credits: 5,
    unit: 'watched site crawled on schedule (as GET /v2/lookup/ crawls it); only when the analysis succeeded',
  },
  graphSite: {
    family: 'changes',
    endpoint: 'GraphQL technology.sites, category.sites',
    credits: 1,
    unit: 'site returned (with its technologies, enrichment and history; its changes as GET /v2/changes/)',
  },
  listWebsite: {
    family: 'lists-finalize',
    endpoint: 'POST /v2/lists/{id}',
    credits: 1,
    unit: 'website in the list',
  },
  balance: { family: 'credits', endpoint: 'GET /v2/credits/balance/', credits: 0, unit: 'request' },
  usage: { family: 'usage', endpoint: 'GET <resource path>/usage', credits: 0, unit: 'request' },
} as const satisfies Record<string, CreditPrice>;
