import { ValidationError } from '../../errors';
import { decodeSubdomainCursor } from '../../subdomains';
import { isWithinDomain } from '../../subdomains/subdomain-name-rules';

export interface SubdomainRequest {
  /** Registrable domains, in the caller's order, duplicates collapsed. */
  domains: string[];
  limit: number;
  /** Per domain, the name its page starts after (only the domain the cursor belongs to has one). */
  after: Map<string, string>;
  includeUnresolvable: boolean;
}

export const SUBDOMAIN_LIMIT_DEFAULT = 100;
export const SUBDOMAIN_LIMIT_MAX = 1000;
export const SUBDOMAIN_LIMIT_STEP = 10;
export const SUBDOMAIN_MAX_DOMAINS = 10;

/**
 * The query as the service runs it, from the fields its request schema parsed (subdomains.contract.ts):
 * the domains without duplicates, and the page each starts after. A cursor continues the domain it
 * belongs to (the most specific requested domain holding its name); one that belongs to none of
 * them is refused, naming `after`.
 */
export function toSubdomainRequest(input: {
  domains: readonly string[];
  limit: number;
  after?: string;
  includeUnresolvable: boolean;
}): SubdomainRequest {
  const domains = [...new Set(input.domains)];
  const after = new Map<string, string>();
  if (input.after !== undefined) {
    const name = decodeSubdomainCursor(input.after);
    // Several requested domains can nest (example.co.uk is not under example.uk, but a private
    // suffix entry can be): the most specific domain owns the cursor.
    const owner = domains
      .filter((domain) => isWithinDomain(name, domain))
      .sort((a, b) => b.length - a.length)[0];
    if (owner === undefined) {
      throw new ValidationError('after', 'after: the cursor belongs to none of the requested domains');
    }
    after.set(owner, name);
  }
  return { domains, limit: input.limit, after, includeUnresolvable: input.includeUnresolvable };
}
