import { forEachConcurrently } from '../fetch/concurrency';
import { DnsQuerySession, type DnsQueryOptions } from './dns-query-session';
import { isPrivateAddress } from '../fetch/private-address-guard';
import { lookupNameAnswers } from './name-resolution';
import { ObservationCollector } from './observation-collector';
import type { SubdomainObservation } from './subdomain-observation';
import { SUBDOMAIN_WORDLIST } from './subdomain-wordlist';
import { answersLikeWildcard, detectWildcardAnswers } from './wildcard-detector';
import { transferZone } from './zone-transfer-client';

export interface ActiveDiscoveryOptions extends DnsQueryOptions {
  /** Budget for the whole discovery run; what was found by then is returned. */
  deadlineMs?: number;
  /** Wordlist names resolved at the same time. */
  concurrency?: number;
  /** Random labels probed to detect a wildcard record. */
  wildcardProbes?: number;
  /** Labels to try; the shipped list by default. */
  wordlist?: readonly string[];
  /** Attempt an AXFR against the domain's name servers. */
  zoneTransfer?: boolean;
  /** TCP port of the name servers for the transfer. */
  zoneTransferPort?: number;
  zoneTransferTimeoutMs?: number;
  zoneTransferMaxRecords?: number;
  /** Allow transfers from name servers on loopback/private addresses (tests, intranets). */
  allowPrivateNameServers?: boolean;
  now?: () => Date;
}

export interface ActiveDiscoveryResult {
  observations: SubdomainObservation[];
  /** The domain answers for random names; wordlist hits answering like them were dropped. */
  wildcard: boolean;
  /** A name server handed over the complete zone. */
  zoneTransfer: boolean;
}

export const DEFAULT_DISCOVERY_DEADLINE_MS = 120_000;
export const DEFAULT_DISCOVERY_CONCURRENCY = 10;
export const DEFAULT_WILDCARD_PROBES = 3;
export const DEFAULT_ZONE_TRANSFER_TIMEOUT_MS = 10_000;
const DEFAULT_ZONE_TRANSFER_MAX_RECORDS = 50_000;

/**
 * Active discovery for one domain (the body of a background job, never inline): an optional zone
 * transfer from the domain's name servers, then the wordlist resolved with bounded concurrency.
 * Wildcard detection runs before the wordlist, because under a wildcard record every guessed name
 * "resolves". DNS-record sources are separate (collectDnsSubdomains). Never throws.
 *
 * @param domain a registrable domain as returned by normaliseRequestedDomain
 */
export async function discoverSubdomains(
  domain: string,
  options: ActiveDiscoveryOptions = {},
): Promise<ActiveDiscoveryResult> {
  const session = new DnsQuerySession(options);
  const collector = new ObservationCollector(domain, options.now);
  const result = { wildcard: false, zoneTransfer: false };

  const work = async () => {
    if (options.zoneTransfer)
      result.zoneTransfer = await attemptZoneTransfer(session, collector, domain, options);
    const wildcard = await detectWildcardAnswers(
      session,
      domain,
      options.wildcardProbes ?? DEFAULT_WILDCARD_PROBES,
    );
    result.wildcard = wildcard !== null;
    const names = (options.wordlist ?? SUBDOMAIN_WORDLIST).map((label) => `${label}.${domain}`);
    await forEachConcurrently(
      names,
      options.concurrency ?? DEFAULT_DISCOVERY_CONCURRENCY,
      async (name) => {
        const lookup = await lookupNameAnswers(session, name);
        if (lookup.resolution !== 'resolvable') return;
        if (wildcard && answersLikeWildcard(lookup.answers, wildcard)) return;
        collector.add(name, 'wordlist');
      },
      session.signal,
    );
  };
  await session.runUntil(options.deadlineMs ?? DEFAULT_DISCOVERY_DEADLINE_MS, work);
  return { observations: collector.finish(), ...result };
}

/**
 * Tries the domain's name servers one address at a time until one hands over the whole zone.
 * Every owner name and every in-domain name inside the records (NS, CNAME, MX, SRV targets) is
 * recorded, also from partial transfers: those names were published by the zone all the same.
 */
async function attemptZoneTransfer(
  session: DnsQuerySession,
  collector: ObservationCollector,
  domain: string,
  options: ActiveDiscoveryOptions,
): Promise<boolean> {
  const nameServers = await session.records((r) => r.resolveNs(domain));
  const addresses = (
    await Promise.all(
      nameServers.map(async (ns) => [
        ...(await session.records((r) => r.resolve4(ns))),
        ...(await session.records((r) => r.resolve6(ns))),
      ]),
    )
  ).flat();
  for (const host of new Set(addresses)) {
    if (session.closed) return false;
    if (!options.allowPrivateNameServers && isPrivateAddress(host)) continue;
    const transfer = await transferZone(domain, {
      host,
      port: options.zoneTransferPort ?? 53,
      timeoutMs: options.zoneTransferTimeoutMs ?? DEFAULT_ZONE_TRANSFER_TIMEOUT_MS,
      maxRecords: options.zoneTransferMaxRecords ?? DEFAULT_ZONE_TRANSFER_MAX_RECORDS,
      signal: session.signal,
    });
    for (const record of transfer.records) {
      [record.name, ...record.targets].forEach((name) => collector.add(name, 'zone-transfer'));
    }
    if (transfer.complete) return true;
  }
  return false;
}
