import disposableDomains from 'disposable-email-domains/index.json';
import disposableWildcardDomains from 'disposable-email-domains/wildcard.json';

/**
 * Both lists of the package: exact domains and "wildcard" domains (any subdomain is disposable).
 * A domain is disposable when it or any parent domain is listed, so "x.mailinator.com" counts,
 * which covers the wildcard list and providers that hand out per-user subdomains.
 */
const DISPOSABLE_DOMAINS: ReadonlySet<string> = new Set(
  [...disposableDomains, ...disposableWildcardDomains].map((domain) => domain.toLowerCase()),
);

/** `domain` is lower case ASCII (as returned by parseEmailAddress). */
export function isDisposableDomain(domain: string): boolean {
  const labels = domain.split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (DISPOSABLE_DOMAINS.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}
