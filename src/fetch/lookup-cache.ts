import type { HostLookup } from './private-address-guard';

export interface LookupCacheOptions {
  /** How long an answer (or the absence of one) is reused. */
  ttlMs: number;
  /** Names kept at most; the oldest answer goes first. */
  maxNames: number;
  now?: () => number;
}

/**
 * Reuses a name's addresses for a short while. Node's resolver (c-ares, DNS_SERVERS) keeps no
 * cache, so a crawl asked the same A and AAAA questions for every connection it opened: the early
 * private-address check, the https attempt, the http fallback, each page's connections (about 3.6
 * of each per site in bench:index-scale). Concurrent lookups of one name share one question. The
 * guard still sees every address a connection uses: it checks what this lookup returns.
 */
export function cachedLookup(lookup: HostLookup, options: LookupCacheOptions): HostLookup {
  const now = options.now ?? Date.now;
  const answers = new Map<string, { expires: number; addresses: Promise<string[]> }>();
  return (hostname) => {
    const key = hostname.toLowerCase();
    const cached = answers.get(key);
    if (cached && cached.expires > now()) return cached.addresses;
    if (cached) answers.delete(key);
    const addresses = lookup(hostname);
    answers.set(key, { expires: now() + options.ttlMs, addresses });
    // A failed lookup is not kept: the next connection asks again.
    addresses.catch(() => {
      if (answers.get(key)?.addresses === addresses) answers.delete(key);
    });
    if (answers.size > options.maxNames) answers.delete(answers.keys().next().value!);
    return addresses;
  };
}
