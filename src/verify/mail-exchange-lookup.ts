import { promises as dns, NODATA, NOTFOUND } from 'node:dns';
import { isIP } from 'node:net';
import { abortable } from '../platform/abortable';

/** Where mail for a domain goes, or why it cannot go anywhere. */
export type MailExchangeLookup =
  /** Hosts in preference order; `implicit` when the domain itself is used (no MX, but an address). */
  | { status: 'found'; hosts: string[]; implicit: boolean }
  /** The domain cannot receive mail: it does not exist, publishes a null MX, or has no MX and no address. */
  | { status: 'no-mail'; reason: 'nxdomain' | 'null-mx' | 'no-address' }
  /** DNS gave no answer (timeout, SERVFAIL, refused…): nothing is known about the domain. */
  | { status: 'dns-failure'; code: string };

/**
 * RFC 5321 section 5.1 resolution of a mail domain: MX records by preference; a null MX
 * (RFC 7505, exchange ".") means "accepts no mail"; without MX records, the domain's own A/AAAA
 * record is the implicit MX. NXDOMAIN and NODATA are answers; every other error is a failure to
 * get an answer and must not be reported as "the domain cannot receive mail". Never rejects:
 * running out of the verification's time (the signal) is a DNS timeout.
 */
export async function lookupMailExchange(
  resolver: dns.Resolver,
  domain: string,
  signal: AbortSignal,
): Promise<MailExchangeLookup> {
  let records: { exchange: string; priority: number }[];
  try {
    records = await abortable(resolver.resolveMx(domain), signal);
  } catch (error) {
    const code = errorCode(error, signal);
    if (code === NOTFOUND) return { status: 'no-mail', reason: 'nxdomain' };
    if (code !== NODATA) return { status: 'dns-failure', code };
    records = [];
  }
  // node reports the null MX's "." as an empty exchange.
  if (records.some((record) => normalizeHost(record.exchange) === '')) {
    return { status: 'no-mail', reason: 'null-mx' };
  }
  if (records.length > 0) {
    const ordered = [...records].sort((a, b) => a.priority - b.priority);
    return {
      status: 'found',
      hosts: [...new Set(ordered.map((r) => normalizeHost(r.exchange)))],
      implicit: false,
    };
  }
  const addresses = await resolveHostAddresses(resolver, domain, signal);
  if (addresses.status === 'dns-failure') return addresses;
  if (addresses.addresses.length === 0) return { status: 'no-mail', reason: 'no-address' };
  return { status: 'found', hosts: [domain], implicit: true };
}

export type HostAddresses =
  { status: 'found'; addresses: string[] } | { status: 'dns-failure'; code: string };

/**
 * A mail host's addresses through the service's resolver (never the system's getaddrinfo, so
 * DNS_SERVERS applies to every name), IPv4 first because IPv6 paths to mail servers are the ones
 * most often broken. An empty list means the name has no address.
 */
export async function resolveHostAddresses(
  resolver: dns.Resolver,
  host: string,
  signal: AbortSignal,
): Promise<HostAddresses> {
  if (isIP(host)) return { status: 'found', addresses: [host] };
  const [v4, v6] = await Promise.allSettled([
    abortable(resolver.resolve4(host), signal),
    abortable(resolver.resolve6(host), signal),
  ]);
  const addresses: string[] = [];
  for (const outcome of [v4, v6]) {
    if (outcome.status === 'fulfilled') addresses.push(...outcome.value);
  }
  const failure = [v4, v6].find(
    (outcome): outcome is PromiseRejectedResult =>
      outcome.status === 'rejected' && (signal.aborted || !NEGATIVE_ANSWERS.has(errorCode(outcome.reason))),
  );
  if (addresses.length === 0 && failure)
    return { status: 'dns-failure', code: errorCode(failure.reason, signal) };
  return { status: 'found', addresses };
}

/** Codes of node:dns that are answers (the name or the record type does not exist), not failures. */
const NEGATIVE_ANSWERS: ReadonlySet<string> = new Set([NOTFOUND, NODATA]);

function normalizeHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/** The node:dns error code; running out of the verification's time counts as a DNS timeout. */
function errorCode(error: unknown, signal?: AbortSignal): string {
  if (signal?.aborted) return 'ETIMEOUT';
  return (error as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
}
