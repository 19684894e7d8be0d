import type { Config } from '../../platform/config';
import type { ActiveDiscoveryOptions, DnsQueryOptions } from '../../subdomains';

/** What the subdomain finder reads from the configuration, in the discovery engine's terms. */
export interface SubdomainSettings {
  dns: DnsQueryOptions;
  /** Budget of the DNS pass run inside a request for a domain seen for the first time. */
  inlineBudgetMs: number;
  /** Wordlist discovery in the background job (off by default: it sends many queries). */
  activeDiscovery: boolean;
  /** Options of that discovery run; `zoneTransfer` says whether an AXFR is attempted. */
  discovery: ActiveDiscoveryOptions;
  /** Names resolved at once by the job's resolution checks. */
  concurrency: number;
  /** Budget of the job's resolution checks. */
  checkBudgetMs: number;
}

export function subdomainSettingsFrom(config: Config): SubdomainSettings {
  const dns: DnsQueryOptions = {
    dnsServers: [...config.DNS_SERVERS],
    queryTimeoutMs: config.SUBDOMAIN_DNS_QUERY_TIMEOUT_MS,
    tries: config.SUBDOMAIN_DNS_TRIES,
  };
  return {
    dns,
    inlineBudgetMs: config.SUBDOMAIN_INLINE_DNS_BUDGET_MS,
    activeDiscovery: config.SUBDOMAIN_ACTIVE_DISCOVERY,
    discovery: {
      ...dns,
      deadlineMs: config.SUBDOMAIN_DISCOVERY_BUDGET_MS,
      concurrency: config.SUBDOMAIN_DISCOVERY_CONCURRENCY,
      wildcardProbes: config.SUBDOMAIN_WILDCARD_PROBES,
      zoneTransfer: config.SUBDOMAIN_ZONE_TRANSFER,
      zoneTransferPort: config.SUBDOMAIN_ZONE_TRANSFER_PORT,
      // The same switch as every other outbound target: loopback name servers only in tests/dev.
      allowPrivateNameServers: config.ALLOW_PRIVATE_TARGETS,
    },
    concurrency: config.SUBDOMAIN_DISCOVERY_CONCURRENCY,
    checkBudgetMs: config.SUBDOMAIN_DISCOVERY_BUDGET_MS,
  };
}
