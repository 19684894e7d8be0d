/** Where a subdomain name was seen; storage keeps first and last seen per name. */
export type SubdomainSource = 'crawl' | 'certificate' | 'dns' | 'wordlist' | 'zone-transfer';

export interface SubdomainObservation {
  /** Lowercase ASCII hostname, the domain itself or ending in `.domain` (see acceptSubdomain). */
  name: string;
  source: SubdomainSource;
  seenAt: Date;
}
