import { BlockList, isIP, isIPv6 } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { TargetForbiddenError, ValidationError } from '../errors';
import { allowedRanges } from './private-ranges';

/**
 * Ranges no outbound request of the service may reach unless the operator allows private targets:
 * anything that is not the public internet (RFC 6890 special-purpose registries) plus the cloud
 * metadata endpoints, which sit inside link-local (169.254.169.254, AWS fd00:ec2::254 in ULA,
 * Alibaba 100.100.100.200 in CGNAT, Oracle 192.0.0.192).
 */
const BLOCKED_IPV4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];

const BLOCKED_IPV6: ReadonlyArray<[string, number]> = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID...)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local, AWS metadata fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
];

const blockList = new BlockList();
for (const [network, prefix] of BLOCKED_IPV4) blockList.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of BLOCKED_IPV6) blockList.addSubnet(network, prefix, 'ipv6');

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits; the embedded address decides. */
const IPV4_EMBEDDING_PREFIXES: ReadonlyArray<[string, number]> = [
  ['64:ff9b::', 96], // NAT64 well-known prefix
  ['2002::', 16], // 6to4 (the IPv4 address is in bits 16-48, handled below)
];

/**
 * True when the address is not a public unicast address. IPv4-mapped IPv6 (::ffff:a.b.c.d) is
 * matched against the IPv4 ranges by BlockList itself; NAT64 and 6to4 are unwrapped here.
 */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return true; // not an address at all: never "public"
  if (family === 4) return blockList.check(ip, 'ipv4');
  if (blockList.check(ip, 'ipv6')) return true;
  const embedded = embeddedIpv4(ip);
  return embedded !== undefined && blockList.check(embedded, 'ipv4');
}

/** Which private targets an outbound request may reach: all (ALLOW_PRIVATE_TARGETS), some, or none. */
export interface PrivateTargetPolicy {
  /** Allow private, loopback and metadata targets (ALLOW_PRIVATE_TARGETS): tests and local use only. */
  allowPrivateTargets?: boolean;
  /**
   * ALLOWED_PRIVATE_RANGES: CIDR ranges allowed although private (e.g. 127.0.0.0/8 for a local test
   * web); every other private, loopback or link-local range stays refused.
   */
  allowedPrivateRanges?: readonly string[];
}

/** Each list's matcher, built once (the configuration's list lives as long as the process). */
const matchers = new WeakMap<readonly string[], BlockList | undefined>();

/** True when the policy refuses a connection to this address. */
export function isRefusedAddress(address: string, policy: PrivateTargetPolicy = {}): boolean {
  if (policy.allowPrivateTargets) return false;
  if (!isPrivateAddress(address)) return false;
  const ranges = policy.allowedPrivateRanges;
  if (!ranges || ranges.length === 0) return true;
  let allowed = matchers.get(ranges);
  if (!matchers.has(ranges)) matchers.set(ranges, (allowed = allowedRanges(ranges)));
  if (!allowed) return true;
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return !allowed.check(ip, 'ipv4');
  if (allowed.check(ip, 'ipv6')) return false;
  // NAT64 and 6to4 forms of an allowed IPv4 address are that address.
  const embedded = embeddedIpv4(ip);
  return embedded === undefined || !allowed.check(embedded, 'ipv4');
}

/** True when any private target may be reached (a pre-check can then skip the DNS lookup). */
function allowsEveryTarget(policy: PrivateTargetPolicy): boolean {
  return policy.allowPrivateTargets === true;
}

function embeddedIpv4(ipv6: string): string | undefined {
  const words = expandIpv6(ipv6);
  const [nat64, sixToFour] = IPV4_EMBEDDING_PREFIXES;
  if (inPrefix(words, nat64[0], nat64[1])) return wordsToIpv4(words[6], words[7]);
  if (inPrefix(words, sixToFour[0], sixToFour[1])) return wordsToIpv4(words[1], words[2]);
  return undefined;
}

function inPrefix(words: number[], network: string, prefix: number): boolean {
  const net = expandIpv6(network);
  for (let bit = 0; bit < prefix; bit += 16) {
    const bits = Math.min(16, prefix - bit);
    const mask = (0xffff << (16 - bits)) & 0xffff;
    if ((words[bit / 16] & mask) !== (net[bit / 16] & mask)) return false;
  }
  return true;
}

function wordsToIpv4(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Eight 16-bit words of an IPv6 address, including the dotted-quad tail form. */
function expandIpv6(ip: string): number[] {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headWords = head ? head.split(':') : [];
  const tailWords = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array(8 - headWords.length - tailWords.length).fill('0');
  return [...headWords, ...zeros, ...tailWords].map((word) => parseInt(word, 16));
}

export interface UrlGuardOptions extends PrivateTargetPolicy {
  /** Name resolution used for the pre-check; the system resolver by default. */
  lookup?: HostLookup;
}

/** The shape of dns.lookup with `all: true`, so tests can map names to loopback addresses. */
export type HostLookup = (hostname: string) => Promise<string[]>;

export const systemLookup: HostLookup = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((entry) => entry.address)),
    ),
  );

/**
 * Parses and checks the form of an outbound URL: http or https only, no user:password (they would
 * be sent to a third party and logged). Throws ValidationError(parameter) for a malformed URL.
 */
export function parseOutboundUrl(url: string, parameter = 'url'): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError(parameter, `${parameter} is not a valid absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ValidationError(parameter, `${parameter} must use http or https`);
  }
  if (parsed.username || parsed.password) {
    throw new ValidationError(parameter, `${parameter} must not contain credentials`);
  }
  return parsed;
}

/**
 * The early check for callers that want to refuse a target before queueing work (an endpoint
 * validating callback_url, the crawler before a job): the URL's form, then every address its host
 * resolves to. It is not the security boundary on its own (DNS can change between this check and
 * the connection): the guarded agent checks the address actually connected as well.
 * Throws ValidationError for a malformed URL and TargetForbiddenError for a refused target.
 */
export async function assertPublicUrl(
  url: string,
  options: UrlGuardOptions = {},
  parameter = 'url',
): Promise<URL> {
  const parsed = parseOutboundUrl(url, parameter);
  if (allowsEveryTarget(options)) return parsed;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await (options.lookup ?? systemLookup)(host).catch(() => []);
  if (addresses.length === 0)
    throw new TargetForbiddenError(`${parameter}: the host ${host} does not resolve`, parameter);
  const refused = addresses.find((address) => isRefusedAddress(address, options));
  if (refused !== undefined) {
    throw new TargetForbiddenError(`${parameter}: ${describeRefusal(host, refused)}`, parameter);
  }
  return parsed;
}

/**
 * The early check of a URL the service is about to fetch (an analysis, a crawl, a lookup that
 * indexes the site): refused at once, before anything is charged or queued, when its host is or
 * resolves to a private address. A host that does not resolve now is left to the fetch, which
 * reports it as the target's failure (it may resolve by the time a job runs; DNS may be down only
 * for a moment). Like assertPublicUrl, not the security boundary: the guarded agent is.
 */
export async function assertFetchableUrl(
  url: string,
  options: UrlGuardOptions = {},
  parameter = 'url',
): Promise<void> {
  if (allowsEveryTarget(options)) return;
  const host = parseOutboundUrl(url, parameter).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await (options.lookup ?? systemLookup)(host).catch(() => []);
  const refused = addresses.find((address) => isRefusedAddress(address, options));
  if (refused !== undefined) {
    throw new TargetForbiddenError(`${parameter}: ${describeRefusal(host, refused)}`, parameter);
  }
}

/** Why a target is refused, and the setting that would allow it (a newcomer trying localhost). */
export function describeRefusal(host: string, address: string): string {
  const shown = isIPv6(address) ? `[${address}]` : address;
  const why =
    host === address || `[${host}]` === shown
      ? `the address ${shown} is private, loopback, link-local or reserved`
      : `${host} resolves to ${shown}, a private, loopback, link-local or reserved address`;
  return `${why} (ALLOW_PRIVATE_TARGETS=true allows such targets, for local development; ALLOWED_PRIVATE_RANGES allows given ranges)`;
}
