import { addCapped, LIMITS, nonEmpty } from './limits';
import { metaValue } from './page-document';
import type { ReadPage, SiteContext } from './site-context';
import type { LocaleSet } from './site-enrichment';

/** Lowercase BCP 47 tag ("en-US", "en_us" → "en-us"); undefined for non-tags ("x-default", "{{lang}}"). */
export function normaliseLanguageTag(tag: string | undefined): string | undefined {
  const lower = tag?.trim().toLowerCase();
  // Most tags hold no "_": no regex replacement run on them.
  const normalised = lower?.includes('_') ? lower.replace(/_/g, '-') : lower;
  return normalised && /^[a-z]{2,3}(-[a-z0-9]{2,8}){0,3}$/.test(normalised) ? normalised : undefined;
}

/** Text shorter than this is not given to the detector: too little to tell languages apart. */
const MIN_DETECTION_TEXT = 200;
const MAX_DETECTION_TEXT = 20_000;

/** Languages a page declares: <html lang>, Content-Language, <meta http-equiv="content-language">, og:locale. */
function declaredLanguages(page: ReadPage): string[] {
  // Pushed in that order into one list: no list per source, none spread into another.
  const tags: string[] = [];
  addTag(tags, page.doc.htmlLang);
  for (const value of page.headers?.['content-language'] ?? []) addTags(tags, value);
  for (const value of page.doc.meta.get('content-language') ?? []) addTags(tags, value);
  addTag(tags, metaValue(page.doc, 'og:locale'));
  return tags;
}

/** Each comma-separated tag of a value, normalised, when it is one. */
function addTags(tags: string[], value: string): void {
  for (const tag of value.split(',')) addTag(tags, tag);
}

function addTag(tags: string[], tag: string | undefined): void {
  const normalised = normaliseLanguageTag(tag);
  if (normalised !== undefined) tags.push(normalised);
}

/**
 * locale: `language` is the home page's declared language, else what the language detector makes
 * of its text (when it is long enough and the detector is confident); `languages` adds every page's
 * declared languages and the site's hreflang alternates. ipCountry and ipRegion are GeoIP's answer
 * for the address the home page was fetched from; ipCountries the countries of every address.
 */
export function extractLocale(context: SiteContext): LocaleSet {
  const out: LocaleSet = {};
  const languages = new Set<string>();
  const home = context.home;
  // The home page's are read once: its language and its part of the languages.
  const homeDeclared = home ? declaredLanguages(home) : [];
  let language: string | undefined = homeDeclared[0];
  if (!language && home && context.input.detectLanguage) {
    const text = home.doc.text.replace(/\s+/g, ' ').trim();
    if (text.length >= MIN_DETECTION_TEXT)
      language = normaliseLanguageTag(context.input.detectLanguage(text.slice(0, MAX_DETECTION_TEXT)));
  }
  if (language) {
    out.language = language;
    languages.add(language);
  }
  for (const page of context.pages) {
    for (const tag of page === home ? homeDeclared : declaredLanguages(page))
      addCapped(languages, tag, LIMITS.values);
    for (const tag of page.doc.hreflangs) addCapped(languages, normaliseLanguageTag(tag), LIMITS.values);
  }
  const list = nonEmpty(languages);
  if (list) out.languages = list;

  const addresses = context.input.addresses ?? [];
  const first = addresses[0];
  if (first?.country) {
    out.ipCountry = first.country;
    if (first.region) out.ipRegion = first.region;
  }
  const countries = nonEmpty(
    new Set(addresses.flatMap((address) => (address.country ? [address.country] : []))),
  );
  if (countries) out.ipCountries = countries;
  return out;
}
