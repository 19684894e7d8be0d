import { isIP } from 'node:net';
import type { DetectedTechnology } from '../../detection';
import {
  enrichSite,
  enrichSiteWithCountry,
  type EnrichmentAddress,
  type EnrichmentInput,
  type EnrichmentTechnology,
  type SiteEnrichment,
  type TextLanguageDetector,
} from '../../enrichment';
import type { FetchedPage } from '../../fetch';
import type { GeoIpLookup } from '../../geoip/geoip-database';
import { loadLanguageDetector } from './language-detector';
import { stageMeter } from '../../platform/stage-meter';
import type { SiteEnrichmentRecord } from '../site-index/site-index.service';

/** The fingerprints' pricing tags of a technology, by slug. */
export type PricingOf = (slug: string) => readonly string[] | undefined;

export interface EnrichOptions {
  /** The site's traffic rank, when the index has one. */
  trafficRank?: number;
}

/**
 * The enrichment library's input from what the fetcher recorded: the pages (home page first), the
 * detected technologies with their pricing tags, the certificate of the home page's https
 * connection, the addresses connected to (with GeoIP's answer), and the DNS facts (SPF in the
 * domain's TXT, DMARC at _dmarc), which are absent for a site on an IP address (DNS was not asked).
 */
export function enrichmentInputOf(
  pages: readonly FetchedPage[],
  technologies: readonly DetectedTechnology[],
  geoip: GeoIpLookup,
  pricingOf: PricingOf,
  detectLanguage?: TextLanguageDetector,
  options: EnrichOptions = {},
): EnrichmentInput {
  const home = pages.find((page) => new URL(page.input.url).pathname === '/') ?? pages[0];
  const ordered = home ? [home, ...pages.filter((page) => page !== home)] : [];
  const addresses: EnrichmentAddress[] = [];
  for (const page of ordered) {
    const address = page.remoteAddress;
    if (!address || addresses.some((known) => known.address === address)) continue;
    addresses.push({ address, ...geoip.lookup(address) });
  }
  const host = home ? new URL(home.input.url).hostname.replace(/^\[|\]$/g, '') : '';
  const dns = home?.siteFacts.dns;
  const mapped: EnrichmentTechnology[] = technologies.map((technology) => ({
    slug: technology.slug,
    name: technology.name,
    categories: technology.categories,
    pricing: pricingOf(technology.slug) ?? [],
  }));
  return {
    siteUrl: home?.input.url ?? '',
    pages: ordered.map((page) => ({
      url: page.input.url,
      html: page.input.html,
      headers: page.input.headers,
      ...(page.input.parsed ? { parsed: page.input.parsed } : {}),
    })),
    technologies: mapped,
    ...(home?.certificate
      ? {
          certificate: {
            issuer: home.certificate.issuer,
            protocol: home.certificate.protocol,
            validTo: home.certificate.validTo,
          },
        }
      : {}),
    addresses,
    ...(dns && isIP(host) === 0 ? { dns: { txt: dns.TXT, dmarc: dns.DMARC } } : {}),
    ...(options.trafficRank !== undefined ? { trafficRank: options.trafficRank } : {}),
    ...(detectLanguage ? { detectLanguage } : {}),
  };
}

/**
 * The enrichment step of an analysis: fetch facts + GeoIP + pricing + the language detector into
 * the pure library. Wave 2 stores its result in the index and adds verifiedEmail/safeEmail through
 * a SiteEmailVerifier (site-email-verifier.ts) and the events from the index.
 */
export class SiteEnricher {
  constructor(
    private readonly geoip: GeoIpLookup,
    private readonly pricingOf: PricingOf,
  ) {}

  async enrich(
    pages: readonly FetchedPage[],
    technologies: readonly DetectedTechnology[],
    options: EnrichOptions = {},
  ): Promise<SiteEnrichment> {
    const detectLanguage = await loadLanguageDetector();
    return enrichSite(
      enrichmentInputOf(pages, technologies, this.geoip, this.pricingOf, detectLanguage, options),
    );
  }

  /** The record the index stores (SiteIndexService.recordEnrichment): the enrichment and the site's country. */
  async enrichForIndex(
    pages: readonly FetchedPage[],
    technologies: readonly DetectedTechnology[],
    options: EnrichOptions = {},
  ): Promise<SiteEnrichmentRecord> {
    const detectLanguage = await loadLanguageDetector();
    return stageMeter.measure('enrich', () =>
      enrichSiteWithCountry(
        enrichmentInputOf(pages, technologies, this.geoip, this.pricingOf, detectLanguage, options),
      ),
    );
  }
}
