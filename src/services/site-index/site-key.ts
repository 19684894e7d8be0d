import { parse } from 'tldts';

export interface SiteKey {
  /** The index key: host without a leading "www.", with the port when it is not the scheme's default. */
  hostname: string;
  /** Registrable domain (public suffix list); the host itself for IPs and single-label hosts. */
  domain: string;
  /** Public suffix with a leading dot (".co.uk"), '' for IPs. */
  tld: string;
  isSubdomain: boolean;
}

/** How a URL maps onto a site of the index: example.com and www.example.com are one site. */
export function siteKeyOf(url: string): SiteKey {
  const parsed = new URL(url);
  const host = parsed.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[|\]$/g, '');
  const bare = host.startsWith('www.') ? host.slice(4) : host;
  const info = parse(bare, { allowPrivateDomains: false });
  const domain = info.isIp || !info.domain ? bare : info.domain;
  const hostname = parsed.port ? `${bare}:${parsed.port}` : bare;
  return {
    hostname,
    domain,
    tld: info.isIp || !info.publicSuffix ? '' : `.${info.publicSuffix}`,
    isSubdomain: bare !== domain,
  };
}

/** Registrable domain of a host name, or null for IPs, bare suffixes and invalid names. */
export function registrableDomainOf(hostname: string): string | null {
  const info = parse(hostname.toLowerCase().replace(/\.$/, ''));
  if (info.isIp || !info.domain) return null;
  return info.domain;
}
