import { countryCodeOf, countryNameOf } from './country-names';
import { cleanText, LIMITS } from './limits';
import type { SiteContext } from './site-context';
import { firstText, isRecord, typesOf, valuesOf } from './structured-data';

export interface PostalAddressFacts {
  city?: string;
  region?: string;
  /** As the site wrote it (a name), or the English name of the code it gave. */
  country?: string;
  countryCode?: string;
}

/**
 * Every schema.org PostalAddress of the site: standalone nodes, and the `address` of any node
 * (organisations, local businesses, places of `location`). A plain-text `address` is skipped:
 * without structure there is no telling the city from the street.
 */
export function postalAddresses(context: SiteContext): PostalAddressFacts[] {
  const found: PostalAddressFacts[] = [];
  const seen = new Set<string>();
  const add = (value: unknown): void => {
    if (!isRecord(value) || found.length >= LIMITS.values) return;
    const types = typesOf(value['@type']);
    if (types.length > 0 && !types.includes('PostalAddress')) return;
    const facts = addressFacts(value);
    const key = formatLocation(facts);
    if (key && !seen.has(key)) {
      seen.add(key);
      found.push(facts);
    }
  };
  for (const node of context.nodes) {
    if (node.types.includes('PostalAddress')) add(node.props);
    for (const address of valuesOf(node.props, 'address')) add(address);
    for (const location of valuesOf(node.props, 'location'))
      if (isRecord(location)) for (const address of valuesOf(location, 'address')) add(address);
  }
  return found;
}

function addressFacts(address: Record<string, unknown>): PostalAddressFacts {
  const rawCountry = firstText(address, 'addressCountry');
  const countryCode = countryCodeOf(rawCountry);
  const country =
    rawCountry && /^[A-Za-z]{2}$/.test(rawCountry.trim())
      ? countryCode && countryNameOf(countryCode)
      : cleanText(rawCountry, 60);
  return {
    city: cleanText(firstText(address, 'addressLocality'), 80),
    region: cleanText(firstText(address, 'addressRegion'), 80),
    country,
    countryCode,
  };
}

/** "City, Region, Country" with the parts that are known; undefined when none is. */
export function formatLocation(facts: PostalAddressFacts): string | undefined {
  const parts = [facts.city, facts.region, facts.country].filter(
    (part, index, all): part is string => !!part && all.indexOf(part) === index,
  );
  return parts.length > 0 ? parts.join(', ') : undefined;
}

/** Country codes of the site's postal addresses, in order found. */
export function addressCountries(context: SiteContext): string[] {
  return [
    ...new Set(postalAddresses(context).flatMap((facts) => (facts.countryCode ? [facts.countryCode] : []))),
  ];
}
