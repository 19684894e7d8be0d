import { countryCodeOf } from './country-names';
import { addressCountries } from './postal-address';
import type { SiteContext } from './site-context';

/**
 * Country-code top-level domains that are sold as generic names (.io, .co, .tv, .me, .ai...): they
 * say nothing about where a site's business is.
 */
const VANITY_CCTLDS = new Set([
  'ac',
  'ad',
  'ai',
  'as',
  'cc',
  'cd',
  'cf',
  'co',
  'cx',
  'eu',
  'fm',
  'ga',
  'gg',
  'gl',
  'gq',
  'gs',
  'im',
  'io',
  'la',
  'ly',
  'me',
  'ml',
  'ms',
  'mu',
  'nu',
  'sh',
  'so',
  'st',
  'su',
  'tk',
  'tm',
  'to',
  'tv',
  'vc',
  'ws',
]);
const TLD_ALIASES: Record<string, string> = { uk: 'GB' };

/** The country a country-code TLD names (".de" → DE, ".co.uk" → GB), undefined for generic TLDs. */
export function countryOfSuffix(suffix: string | undefined): string | undefined {
  const tld = suffix?.split('.').pop()?.toLowerCase();
  if (!tld || tld.length !== 2 || VANITY_CCTLDS.has(tld)) return undefined;
  return TLD_ALIASES[tld] ?? countryCodeOf(tld);
}

/**
 * The country a site's phone numbers are most likely written for (their default region): the
 * country of the postal address the site states, else its country-code TLD, else where its server
 * is (GeoIP). Undefined when none is known: then only numbers in international form are accepted.
 */
export function siteCountry(context: SiteContext): string | undefined {
  return (
    addressCountries(context)[0] ??
    countryOfSuffix(context.suffix) ??
    context.input.addresses?.find((address) => address.country)?.country
  );
}
