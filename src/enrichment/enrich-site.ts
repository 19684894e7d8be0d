import { extractCompany } from './company.extractor';
import { extractContacts } from './contact.extractor';
import { extractEmails } from './email.extractor';
import type { EnrichmentInput } from './enrichment-input';
import { extractKeywords } from './keywords.extractor';
import { extractLocale } from './locale.extractor';
import { extractMeta } from './meta.extractor';
import { extractPhones } from './phone.extractor';
import { extractSecurity } from './security.extractor';
import { extractSignals } from './signals.extractor';
import { readSite } from './site-context';
import { siteCountry } from './site-country';
import type { SiteEnrichment } from './site-enrichment';
import { extractSocial } from './social.extractor';
import { extractTrackers } from './trackers.extractor';

/**
 * The enriched record of a site from what an analysis fetched: every page parsed once, every value
 * derived from those pages, the detected technologies and the connection facts, never invented.
 * Pure and synchronous; bounded on hostile input (see limits.ts).
 */
export function enrichSite(input: EnrichmentInput): SiteEnrichment {
  return enrichSiteWithCountry(input).enrichment;
}

/**
 * The enriched record plus the country the site's business is most likely in (its postal address,
 * else its country-code TLD, else where its server is): the index keeps it for the lists' country
 * filter. It is not a published field of the record.
 */
export function enrichSiteWithCountry(input: EnrichmentInput): {
  enrichment: SiteEnrichment;
  country?: string;
} {
  const context = readSite(input);
  const country = siteCountry(context);
  // Set, not spread: a spread clones an object per site for one optional field.
  const result: { enrichment: SiteEnrichment; country?: string } = {
    enrichment: extractAll(context, input, country),
  };
  if (country) result.country = country;
  return result;
}

function extractAll(
  context: ReturnType<typeof readSite>,
  input: EnrichmentInput,
  country: string | undefined,
): SiteEnrichment {
  return {
    meta: extractMeta(context),
    company: extractCompany(context),
    phone: extractPhones(context, country),
    email: extractEmails(context),
    contact: extractContacts(context),
    social: extractSocial(context),
    locale: extractLocale(context),
    security: extractSecurity(context),
    trackers: extractTrackers(context),
    keywords: extractKeywords(context),
    signals: extractSignals(input.technologies, input.trafficRank),
    events: {},
  };
}
