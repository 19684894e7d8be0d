export { assertPublicUrl, isPrivateAddress, parseOutboundUrl, systemLookup } from './private-address-guard';
export type { HostLookup, UrlGuardOptions } from './private-address-guard';
export {
  createGuardedAgent,
  GUARDED_AGENT_DEFAULTS,
  isTargetRefusal,
  TargetRefusedError,
} from './guarded-agent';
export type { GuardedAgentOptions } from './guarded-agent';
export { HttpClient, HTTP_CLIENT_DEFAULTS } from './http-client';
export type { GetOptions, HttpClientOptions, HttpResponse, RedirectHop } from './http-client';
export { FETCH_ERROR_TYPES, FetchError, isFetchError } from './fetch-error';
export type { FetchErrorType } from './fetch-error';
export { fetchPage, fetchSiteFacts } from './page-fetcher';
export type { FetchedPage, FetchPageOptions, SiteFacts } from './page-fetcher';
export { crawlSite, CRAWL_DEFAULTS, CRAWL_HARD_MAX_PAGES } from './crawler';
export type { CrawledPage, CrawlOptions, CrawlResult } from './crawler';
export { resolveDnsFacts, DNS_FACTS_DEFAULTS } from './dns-facts';
export type { DnsFacts, DnsFactsOptions } from './dns-facts';
export { ASSET_DEFAULTS } from './asset-fetcher';
export type { AssetLimits } from './asset-fetcher';
export type { CertificateFacts } from './tls-certificate';
export { validatorsOf } from './page-memory';
export type { PageMemory, RememberedPage } from './page-memory';
export type { RememberedRobots } from './robots-fetcher';
export { MemoryHostSlots } from './host-slots';
export type { HostSlots } from './host-slots';
