export {
  discoverSubdomains,
  type ActiveDiscoveryOptions,
  type ActiveDiscoveryResult,
} from './active-subdomain-discovery';
export {
  collectDnsSubdomains,
  DEFAULT_INLINE_DNS_DEADLINE_MS,
  type DnsSourceOptions,
} from './dns-subdomain-collector';
export type { DnsQueryOptions } from './dns-query-session';
export { resolveName, type NameResolution } from './name-resolution';
export {
  compareSubdomainNames,
  decodeSubdomainCursor,
  encodeSubdomainCursor,
  pageOfSubdomainNames,
} from './subdomain-cursor';
export { acceptSubdomain, normaliseRequestedDomain } from './subdomain-name-rules';
export type { SubdomainObservation, SubdomainSource } from './subdomain-observation';
