import { DnsQuerySession, type DnsQueryOptions } from './dns-query-session';
import { dmarcReportHosts, isDmarcRecord } from './dmarc-record-parser';
import { ObservationCollector } from './observation-collector';
import { isSpfRecord, parseSpfRecord } from './spf-record-parser';
import { acceptSubdomain, isWithinDomain, normaliseHostname } from './subdomain-name-rules';
import type { SubdomainObservation } from './subdomain-observation';
import { WELL_KNOWN_SRV_NAMES } from './well-known-srv-names';

export interface DnsSourceOptions extends DnsQueryOptions {
  /** Budget for the whole pass; what was found by then is returned. */
  deadlineMs?: number;
  /** Names already known for the domain (crawl, certificates) whose CNAME targets are checked too. */
  knownNames?: readonly string[];
  /** Most SPF records read while following include/redirect chains (RFC 7208 allows 10 lookups). */
  spfMaxLookups?: number;
  now?: () => Date;
}

/** The inline pass runs inside a request whose whole budget is the spec's 10 s. */
export const DEFAULT_INLINE_DNS_DEADLINE_MS = 5000;
const DEFAULT_SPF_MAX_LOOKUPS = 10;
/** Bounds the CNAME questions asked for known names, so a big domain does not eat the budget. */
const MAX_CNAME_CHECKS = 25;

/**
 * Subdomains named by the domain's own DNS records: NS and MX hosts, CNAME targets (of the domain,
 * `www` and known names), SPF include/redirect chains and the hosts they name, DMARC report
 * addresses, and the targets of well-known SRV records. Names outside the domain are discarded.
 * Never throws; bounded by `deadlineMs` and by a timeout per question.
 *
 * @param domain a registrable domain as returned by normaliseRequestedDomain
 */
export async function collectDnsSubdomains(
  domain: string,
  options: DnsSourceOptions = {},
): Promise<SubdomainObservation[]> {
  const session = new DnsQuerySession(options);
  const collector = new ObservationCollector(domain, options.now);
  const add = (names: string[]) => names.forEach((name) => collector.add(name, 'dns'));

  const known = (options.knownNames ?? [])
    .map((name) => acceptSubdomain(name, domain))
    .filter((name) => name !== null);
  const cnameSources = [domain, `www.${domain}`, ...known];
  const work = () =>
    Promise.all([
      session.records((r) => r.resolveNs(domain)).then(add),
      session.records((r) => r.resolveMx(domain)).then((mx) => add(mx.map((record) => record.exchange))),
      followSpf(session, collector, domain, options.spfMaxLookups ?? DEFAULT_SPF_MAX_LOOKUPS),
      session
        .records((r) => r.resolveTxt(`_dmarc.${domain}`))
        .then((txt) =>
          txt
            .map((chunks) => chunks.join(''))
            .filter(isDmarcRecord)
            .forEach((record) => add(dmarcReportHosts(record))),
        ),
      ...WELL_KNOWN_SRV_NAMES.map((service) =>
        session
          .records((r) => r.resolveSrv(`${service}.${domain}`))
          .then((srv) => add(srv.map((s) => s.name))),
      ),
      ...[...new Set(cnameSources)]
        .slice(0, MAX_CNAME_CHECKS)
        .map((name) => session.records((r) => r.resolveCname(name)).then(add)),
    ]);
  await session.runUntil(options.deadlineMs ?? DEFAULT_INLINE_DNS_DEADLINE_MS, work);
  return collector.finish();
}

/**
 * Reads the domain's SPF record and, breadth first, the SPF records it includes or redirects to.
 * Only policies inside the domain are followed (`_spf.example.com`): another organisation's
 * policy (`_spf.google.com`) names that organisation's hosts, which would be discarded anyway.
 * Visited names and a lookup budget stop loops and long chains.
 */
async function followSpf(
  session: DnsQuerySession,
  collector: ObservationCollector,
  domain: string,
  maxLookups: number,
) {
  const queue = [domain];
  const visited = new Set<string>();
  while (queue.length > 0 && visited.size < maxLookups) {
    const policy = queue.shift()!;
    if (visited.has(policy)) continue;
    visited.add(policy);
    const txt = await session.records((r) => r.resolveTxt(policy));
    for (const record of txt.map((chunks) => chunks.join('')).filter(isSpfRecord)) {
      const { policies, hosts } = parseSpfRecord(record);
      for (const target of policies) {
        collector.add(target, 'dns');
        const next = normaliseHostname(target);
        if (next !== null && isWithinDomain(next, domain)) queue.push(next);
      }
      hosts.forEach((host) => collector.add(host, 'dns'));
    }
  }
}
