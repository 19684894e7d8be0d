/** The enrichment library: pure (no I/O), site pages + technologies + connection facts → SiteEnrichment. */
export { enrichSite, enrichSiteWithCountry } from './enrich-site';
export type {
  EnrichmentAddress,
  EnrichmentCertificate,
  EnrichmentDns,
  EnrichmentInput,
  EnrichmentPage,
  EnrichmentTechnology,
  TextLanguageDetector,
} from './enrichment-input';
export type {
  CertInfo,
  CompanySet,
  ContactSet,
  EmailSet,
  Employee,
  EnrichmentSet,
  EventsSet,
  KeywordsSet,
  LocaleSet,
  MetaSet,
  PhoneSet,
  SecuritySet,
  SignalsSet,
  SiteEnrichment,
  SocialNetwork,
  SocialSet,
  SpendOrTrafficLevel,
  TrackersSet,
} from './site-enrichment';
export { ENRICHMENT_SETS, SOCIAL_NETWORKS } from './site-enrichment';
export { emailVerificationSets } from './email-verification';
export type { EmailReachability, EmailVerdict, SiteEmailVerifier } from './email-verification';
export { contactPageRank, pageKindOf } from './page-kind';
export type { PageKind } from './page-kind';
export { COMPANY_SIZES } from './organization-types';
export { PRICING_TAG_MONTHLY_USD, SPEND_LEVELS, TRAFFIC_LEVELS, trafficLevelOf } from './signals.extractor';
export { TRACKER_CATEGORY_SLUGS } from './trackers.extractor';
