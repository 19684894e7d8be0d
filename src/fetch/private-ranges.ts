import { BlockList } from 'node:net';
import { parseCidr } from '../platform/cidr-range';

/**
 * ALLOWED_PRIVATE_RANGES: CIDR ranges (e.g. 127.0.0.0/8, fd12:3456::/48) that outbound requests may
 * reach although they are private, loopback or link-local, while every other such range stays
 * refused. ALLOW_PRIVATE_TARGETS opens them all at once; this lets an operator open only the one
 * network a local test web (or an intranet crawl) lives on, so a redirect to a metadata endpoint or
 * to 10.x is still refused.
 */

/** Matcher of every range of the list; the list is assumed valid (the configuration checked it). */
export function allowedRanges(ranges: readonly string[]): BlockList | undefined {
  if (ranges.length === 0) return undefined;
  const list = new BlockList();
  for (const range of ranges) {
    const parsed = parseCidr(range);
    if ('error' in parsed) throw new Error(`ALLOWED_PRIVATE_RANGES: ${parsed.error}`);
    list.addSubnet(parsed.network, parsed.prefix, parsed.family);
  }
  return list;
}
