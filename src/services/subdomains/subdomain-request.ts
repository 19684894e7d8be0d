import { ValidationError } from '../../errors';
import { decodeSubdomainCursor, normaliseRequestedDomain } from '../../subdomains';
import { isWithinDomain } from '../../subdomains/subdomain-name-rules';

export interface SubdomainQuery {
  /** One to ten domain names as the caller wrote them. */
  domains: readonly string[];
  /** Names per domain; a multiple of 10 (the spec), 100 when absent. */
  limit?: number;
  /** A `moreAfter` value of a previous response. */
  after?: string;
  /** Also return names that no longer resolve. */
  includeUnresolvable?: boolean;
}

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
 * Validates and normalises a subdomain query. Every error names its parameter (and the offending
 * value for domains), so both transports can answer 400 with something the caller can fix.
 */
export function parseSubdomainQuery(query: SubdomainQuery): SubdomainRequest {
  if (query.domains.length === 0 || query.domains.length > SUBDOMAIN_MAX_DOMAINS) {
    throw new ValidationError('domains', `domains must hold 1 to ${SUBDOMAIN_MAX_DOMAINS} domain names`);
  }
  const domains = [...new Set(query.domains.map((raw) => normaliseRequestedDomain(raw)))];
  const limit = query.limit ?? SUBDOMAIN_LIMIT_DEFAULT;
  if (
    !Number.isInteger(limit) ||
    limit < SUBDOMAIN_LIMIT_STEP ||
    limit > SUBDOMAIN_LIMIT_MAX ||
    limit % SUBDOMAIN_LIMIT_STEP !== 0
  ) {
    throw new ValidationError(
      'limit',
      `limit must be a multiple of ${SUBDOMAIN_LIMIT_STEP} from ${SUBDOMAIN_LIMIT_STEP} to ${SUBDOMAIN_LIMIT_MAX}`,
    );
  }
  const after = new Map<string, string>();
  if (query.after !== undefined) {
    const name = decodeSubdomainCursor(query.after);
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
  return { domains, limit, after, includeUnresolvable: query.includeUnresolvable ?? false };
}
