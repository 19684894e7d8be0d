/**
 * Page languages as lowercase BCP 47 tags ("en", "en-us", "pt-br"), from <html lang>, og:locale
 * ("en_US"), <meta http-equiv="content-language"> and the Content-Language header, deduplicated in
 * that order. Values that are not language tags ("x-default", "{{lang}}") are dropped.
 */
export function normaliseLanguages(tags: string[]): string[] {
  const languages = new Set<string>();
  for (const tag of tags) {
    const normalised = tag.trim().toLowerCase().replace(/_/g, '-');
    if (/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/.test(normalised)) languages.add(normalised);
  }
  return [...languages];
}
