import type {
  CertInfo,
  Employee,
  EnrichmentSet,
  SiteEnrichment,
  SocialSet,
  SpendOrTrafficLevel,
} from '../enrichment';

/**
 * The enriched record as the published answers carry it: the requested field sets side by side on
 * one flat object (the spec's "Enriched lookup record"). Lookup v2, Live v2 and Crawl v2 (`sets=`),
 * their callbacks and their GraphQL types all read this one shape.
 */
export type EnrichmentFields = {
  title?: string;
  description?: string;
  copyright?: string;
  copyrightYear?: number;
  responsive?: boolean;
  schemaOrgTypes?: string[];
  companyName?: string;
  inferredCompanyName?: string;
  industry?: string;
  about?: string;
  companySize?: string;
  companyType?: string;
  companyFounded?: number;
  locations?: string[];
  phone?: string[];
  email?: string[];
  verifiedEmail?: string[];
  safeEmail?: string[];
  employees?: Employee[];
  technologySpend?: SpendOrTrafficLevel;
  trafficLevel?: SpendOrTrafficLevel;
  language?: string;
  languages?: string[];
  ipCountry?: string;
  ipRegion?: string;
  ipCountries?: string[];
  certInfo?: CertInfo;
  https?: boolean;
  dns?: { spf: boolean; dmarc: boolean };
  trackers?: string[];
  keywords?: string[];
  createdAt?: number;
  updatedAt?: number;
  crawlAttemptedAt?: number;
} & SocialSet;

/** The requested sets of a stored record, flattened; a set the record lacks adds nothing. */
export function flattenSets(
  enrichment: SiteEnrichment | null,
  sets: readonly EnrichmentSet[],
): EnrichmentFields {
  const out: EnrichmentFields = {};
  if (!enrichment) return out;
  for (const set of sets) Object.assign(out, enrichment[set] ?? {});
  return out;
}
