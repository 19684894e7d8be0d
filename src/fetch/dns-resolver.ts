import { promises as dns } from 'node:dns';

export interface DnsResolverOptions {
  /** Servers as "ip" or "ip:port" (IPv6 as "[::1]:53"); empty means the system's resolvers. */
  servers: string[];
  /** Per-query timeout in milliseconds. */
  timeoutMs: number;
  /** Attempts per query before giving up. */
  tries: number;
}

/**
 * The service's one way to build a DNS resolver, so that every DNS question (fingerprints,
 * email MX, subdomains) goes to the servers the operator configured (DNS_SERVERS), and tests can
 * point it at a real DNS server on a loopback port.
 */
export function createDnsResolver(options: DnsResolverOptions): dns.Resolver {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs, tries: options.tries });
  if (options.servers.length > 0) resolver.setServers(options.servers);
  return resolver;
}

/** Error codes of node:dns that mean "the name or record does not exist" rather than "no answer". */
export const DNS_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

export function isDnsNotFound(error: unknown): boolean {
  return DNS_NOT_FOUND_CODES.has((error as NodeJS.ErrnoException)?.code ?? '');
}
