import {
  isSupportedCountry,
  parsePhoneNumberFromString,
  searchPhoneNumbersInText,
  type CountryCode,
  type PhoneNumber,
} from 'libphonenumber-js/max';
import { hrefMayStartWith } from './href-start';
import { addCapped, LIMITS, nonEmpty } from './limits';
import { pagesOfKind, type SiteContext } from './site-context';
import type { PhoneSet } from './site-enrichment';
import { firstText, valuesOf } from './structured-data';

/** Characters of a page's text searched for numbers (contact pages are short; this bounds hostile ones). */
const MAX_TEXT = 50_000;
/** Words that announce a phone number just before it; "fax" is not one (fax numbers are left out). */
const PHONE_LABEL =
  /(?:tel(?:efon|éfono|efone|ephone)?|phone|fon|mobil(?:e|e phone)?|handy|cell|call(?: us)?|ruf|hotline|téléphone|telefono|gsm|☎|📞|\bt|\bp|\bm)\s*[.:]{0,2}\s*$/i;
const FAX_LABEL = /fax\s*[.:]{0,2}\s*$/i;
const TEL_HREF = /^\s*(?:tel|callto):(.{3,40})$/i;

/**
 * The E.164 form of a valid number. A number written in national form must also be written the
 * way that country writes it: "(212) 736-5000" read for Germany would be a valid Solingen number,
 * but a German writes Solingen with its trunk prefix ("0212 ..."), so it is a US number without
 * its country code, and is dropped rather than guessed.
 */
function valid(number: PhoneNumber | undefined, written: string): string | undefined {
  if (!number?.isValid()) return undefined;
  const digits = written.replace(/\D/g, '');
  if (!/^\s*(?:\+|00)/.test(written)) {
    const national = number.formatNational().replace(/\D/g, '');
    if (digits[0] !== national[0]) return undefined;
  }
  return number.number;
}

/**
 * phone: E.164 numbers from tel: links on every page, the `telephone` of the site's structured
 * data, and numbers written in the text of its contact and imprint pages when a phone label
 * ("Tel.", "Phone", "Telefon"...) precedes them or they are written in international form.
 * Numbers are parsed and validated with libphonenumber-js (full metadata); national numbers are
 * read for the site's country (its address, else its country-code domain, else its server's
 * GeoIP country); a number that does not validate is dropped. Fax numbers are left out.
 */
export function extractPhones(context: SiteContext, country: string | undefined): PhoneSet {
  const region: CountryCode | undefined = country && isSupportedCountry(country) ? country : undefined;
  const found = new Set<string>();
  const parse = (raw: string): string | undefined => {
    try {
      return valid(parsePhoneNumberFromString(raw, region ? { defaultCountry: region } : undefined), raw);
    } catch {
      return undefined;
    }
  };

  for (const page of context.pages) {
    for (const anchor of page.doc.anchors) {
      const tel = hrefMayStartWith(anchor.href, 'tc') ? TEL_HREF.exec(anchor.href)?.[1] : undefined;
      if (tel) addCapped(found, parse(safeDecode(tel).replace(/[^\d+()\s./-]/g, '')), LIMITS.values);
    }
  }
  for (const node of context.nodes) {
    for (const value of valuesOf(node.props, 'telephone').slice(0, 5)) {
      const text = typeof value === 'string' ? value : firstText({ v: value }, 'v');
      if (text && text.length <= 40) addCapped(found, parse(text), LIMITS.values);
    }
  }
  for (const page of pagesOfKind(context, 'contact', 'imprint')) {
    const text = page.doc.text.slice(0, MAX_TEXT);
    for (const match of searchPhoneNumbersInText(text, region ? { defaultCountry: region } : undefined)) {
      if (found.size >= LIMITS.values) break;
      const before = text.slice(Math.max(0, match.startsAt - 25), match.startsAt);
      const written = text.slice(match.startsAt, match.endsAt);
      if (FAX_LABEL.test(before)) continue;
      if (!PHONE_LABEL.test(before) && !/^(?:\+|00)/.test(written)) continue;
      addCapped(found, valid(match.number, written), LIMITS.values);
    }
  }
  const phone = nonEmpty(found);
  return phone ? { phone } : {};
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
