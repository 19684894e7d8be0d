import { isIP } from 'node:net';
import { getDomain } from 'tldts';

/**
 * Same site = same registrable domain (static.example.com and www.example.com are one site, so a
 * site's scripts on its CDN subdomain are "its own"); hosts without one (IPs, localhost) only
 * match themselves.
 */
export function isSameSite(hostA: string, hostB: string): boolean {
  const a = bare(hostA);
  const b = bare(hostB);
  if (a === b) return true;
  if (isIP(a) !== 0 || isIP(b) !== 0) return false;
  const domain = getDomain(a);
  return domain !== null && domain === getDomain(b);
}

/**
 * The crawler's scope: the same host, treating "www." as the same host (sites serve both). Other
 * subdomains (blog., shop.) are other sites in the index, analysed on their own.
 */
export function isSameCrawlHost(hostA: string, hostB: string): boolean {
  return bare(hostA).replace(/^www\./, '') === bare(hostB).replace(/^www\./, '');
}

function bare(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}
