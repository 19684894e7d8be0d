import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { ValidationError } from '../errors';

const MAX_HOSTNAME_LENGTH = 253;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const REQUESTED_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Lowercase ASCII form of a hostname as it appears in DNS answers, certificates and links:
 * without a leading `*.` (a wildcard certificate or record vouches for its parent name) and
 * without the trailing dot of a fully qualified name; internationalised names become punycode so
 * one host is always stored under one spelling. Null when the result is not a syntactically
 * valid hostname.
 */
export function normaliseHostname(input: string): string | null {
  let name = input.trim().toLowerCase();
  if (name.startsWith('*.')) name = name.slice(2);
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (/[^\x21-\x7e]/.test(name)) name = domainToASCII(name);
  if (name === '' || name.length > MAX_HOSTNAME_LENGTH || isIP(name) !== 0) return null;
  return name.split('.').every((label) => LABEL.test(label)) ? name : null;
}

/** True when `name` (normalised) is `domain` or one of its subdomains. */
export function isWithinDomain(name: string, domain: string): boolean {
  return name === domain || name.endsWith(`.${domain}`);
}

/**
 * The name to store for `domain`, or null when the name does not belong to it. Labels that start
 * with an underscore are refused: they name services and policies (`_dmarc`, `_sip._tls`,
 * RFC 8552), not hosts, and would only pad the list.
 */
export function acceptSubdomain(name: string, domain: string): string | null {
  const normalised = normaliseHostname(name);
  if (normalised === null || !isWithinDomain(normalised, domain)) return null;
  return normalised.split('.').some((label) => label.startsWith('_')) ? null : normalised;
}

/**
 * The registrable domain a caller asked about ("WWW.Example.co.uk." → "example.co.uk").
 * Private public-suffix entries count (a GitHub Pages site is `user.github.io`, not `github.io`)
 * because enumerating a hosting provider's shared suffix would list other people's sites.
 * Names under TLDs the list does not know (`.test`, intranet TLDs) are accepted.
 *
 * @throws ValidationError('domains') naming the value when it is an IP address, not a valid
 *   domain name, or a public suffix alone.
 */
export function normaliseRequestedDomain(input: string): string {
  const trimmed = input.trim();
  const bare = trimmed.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) {
    throw new ValidationError('domains', `domains: "${trimmed}" is an IP address, not a domain name`);
  }
  let name = trimmed.toLowerCase().replace(/\.$/, '');
  if (/[^\x21-\x7e]/.test(name)) name = domainToASCII(name);
  const labels = name.split('.');
  if (
    name.length > MAX_HOSTNAME_LENGTH ||
    labels.length < 2 ||
    !labels.every((l) => REQUESTED_LABEL.test(l))
  ) {
    throw new ValidationError('domains', `domains: "${trimmed}" is not a valid domain name`);
  }
  const { domain } = parse(name, { allowPrivateDomains: true, extractHostname: false });
  if (!domain) {
    throw new ValidationError(
      'domains',
      `domains: "${trimmed}" is a public suffix, not a registrable domain`,
    );
  }
  return domain;
}
