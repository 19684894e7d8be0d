import { isIP } from 'node:net';
import { getDomain } from 'tldts';
import { createDnsResolver } from './dns-resolver';

export interface DnsFactsOptions {
  /** DNS_SERVERS: "ip" or "ip:port"; empty means the system's resolvers. */
  servers?: string[];
  /** Per-query timeout. */
  timeoutMs?: number;
}

export const DNS_FACTS_DEFAULTS = { timeoutMs: 2_000, tries: 2 } as const;

export type DnsFacts = Record<'TXT' | 'MX' | 'NS' | 'SOA' | 'CNAME' | 'DMARC', string[]>;

/**
 * The DNS records fingerprints match (DetectionInput.dns), as text: TXT strings joined, MX exchange
 * names, NS names, SOA as "primary-ns hostmaster", CNAME targets. TXT, MX, NS and SOA are asked of
 * the registrable domain, where zones keep them (www.example.com has none of its own); CNAME of the
 * host itself. DMARC holds the TXT strings of `_dmarc.<domain>` that are DMARC records ("v=DMARC1…",
 * RFC 7489), for the site's security facts; no fingerprint keys on it. A query that fails or times out yields an empty list: DNS facts only add evidence,
 * so they never fail a fetch.
 */
export async function resolveDnsFacts(hostname: string, options: DnsFactsOptions = {}): Promise<DnsFacts> {
  const facts: DnsFacts = { TXT: [], MX: [], NS: [], SOA: [], CNAME: [], DMARC: [] };
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (isIP(host) !== 0) return facts;
  const zone = getDomain(host) ?? host;
  const timeoutMs = options.timeoutMs ?? DNS_FACTS_DEFAULTS.timeoutMs;
  const resolver = createDnsResolver({
    servers: options.servers ?? [],
    timeoutMs,
    tries: DNS_FACTS_DEFAULTS.tries,
  });
  // c-ares enforces the per-try timeout; this bounds the whole query even if a server misbehaves.
  const bounded = <T>(query: Promise<T[]>, format: (record: T) => string): Promise<string[]> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve([]), timeoutMs * DNS_FACTS_DEFAULTS.tries + 100);
      query
        .then(
          (records) => resolve(records.map(format)),
          () => resolve([]),
        )
        .finally(() => clearTimeout(timer));
    });

  try {
    let dmarc: string[];
    [facts.TXT, facts.MX, facts.NS, facts.SOA, facts.CNAME, dmarc] = await Promise.all([
      bounded(resolver.resolveTxt(zone), (chunks) => chunks.join('')),
      bounded(resolver.resolveMx(zone), (record) => record.exchange.toLowerCase()),
      bounded(resolver.resolveNs(zone), (name) => name.toLowerCase()),
      bounded(
        resolver.resolveSoa(zone).then((soa) => [soa]),
        (soa) => `${soa.nsname.toLowerCase()} ${soa.hostmaster.toLowerCase()}`,
      ),
      bounded(resolver.resolveCname(host), (name) => name.toLowerCase()),
      bounded(resolver.resolveTxt(`_dmarc.${zone}`), (chunks) => chunks.join('')),
    ]);
    facts.DMARC = dmarc.filter((record) => /^\s*v\s*=\s*DMARC1\s*(;|$)/i.test(record));
  } finally {
    resolver.cancel();
  }
  return facts;
}
