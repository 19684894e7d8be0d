/**
 * The enriched record of a site, grouped by the field sets of `sets=` so a presenter can pick sets.
 * Field names and types are the spec's "Enriched lookup record". A field the service cannot know
 * for a site is absent, never an empty placeholder (an empty list is absent too).
 */
export interface MetaSet {
  title?: string;
  description?: string;
  /** The site's copyright statement, e.g. "© 2015-2024 Acme GmbH". */
  copyright?: string;
  /** The latest year of the copyright statement. */
  copyrightYear?: number;
  /** The home page declares a viewport for mobile devices. */
  responsive?: boolean;
  /** schema.org types used on the site's pages (JSON-LD and microdata). */
  schemaOrgTypes?: string[];
}

export interface CompanySet {
  /** Name the site states for its organisation (structured data, else og:site_name). */
  companyName?: string;
  /** A guess from the copyright holder, the title or the domain: labelled as such. */
  inferredCompanyName?: string;
  industry?: string;
  about?: string;
  /** A size label: 1-10, 11-50, 51-200, 201-500, 501-1000, 1001-5000, 5001-10000, 10001+. */
  companySize?: string;
  /** Nonprofit, Educational, Government agency or Public company. */
  companyType?: string;
  companyFounded?: number;
  /** "City, Region, Country" of each postal address. */
  locations?: string[];
}

export interface PhoneSet {
  /** E.164 numbers. */
  phone?: string[];
}

export interface EmailSet {
  email?: string[];
  /** Filled by the enrichment step from the email verifier (see email-verification.ts). */
  verifiedEmail?: string[];
  safeEmail?: string[];
}

export interface Employee {
  name: string;
  title: string;
}

export interface ContactSet {
  employees?: Employee[];
}

export const SOCIAL_NETWORKS = [
  'twitter',
  'facebook',
  'linkedin',
  'instagram',
  'github',
  'youtube',
  'tiktok',
  'pinterest',
  'xing',
  'vimeo',
  'mastodon',
] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

/** Profile handles per network. */
export type SocialSet = { [network in SocialNetwork]?: string[] };

export interface LocaleSet {
  /** The home page's language tag, lowercase (en, en-us). */
  language?: string;
  /** Every language the site declares or is written in. */
  languages?: string[];
  /** Country (ISO 3166-1 alpha-2) of the IP address the site answered on. */
  ipCountry?: string;
  ipRegion?: string;
  /** Countries of every address the site's pages answered on. */
  ipCountries?: string[];
}

export interface CertInfo {
  issuer: string;
  protocol?: string;
  /** UNIX seconds. */
  validTo?: number;
}

export interface SecuritySet {
  certInfo?: CertInfo;
  https?: boolean;
  dns?: { spf: boolean; dmarc: boolean };
}

export interface TrackersSet {
  /** Names of the detected technologies that track visitors (see trackers.extractor.ts). */
  trackers?: string[];
}

export interface KeywordsSet {
  keywords?: string[];
}

export type SpendOrTrafficLevel = 'Very low' | 'Low' | 'Medium' | 'High' | 'Very high';

export interface SignalsSet {
  technologySpend?: SpendOrTrafficLevel;
  trafficLevel?: SpendOrTrafficLevel;
}

/** Filled from the index (wave 2), never by the library: when the service first saw, last updated and last tried the site. */
export interface EventsSet {
  createdAt?: number;
  updatedAt?: number;
  crawlAttemptedAt?: number;
}

export interface SiteEnrichment {
  meta: MetaSet;
  company: CompanySet;
  phone: PhoneSet;
  email: EmailSet;
  contact: ContactSet;
  social: SocialSet;
  locale: LocaleSet;
  security: SecuritySet;
  trackers: TrackersSet;
  keywords: KeywordsSet;
  signals: SignalsSet;
  events: EventsSet;
}

/** The field sets of `sets=` (besides `all`). */
export const ENRICHMENT_SETS = [
  'meta',
  'company',
  'phone',
  'email',
  'contact',
  'social',
  'locale',
  'security',
  'trackers',
  'keywords',
  'signals',
  'events',
] as const satisfies readonly (keyof SiteEnrichment)[];
export type EnrichmentSet = (typeof ENRICHMENT_SETS)[number];
