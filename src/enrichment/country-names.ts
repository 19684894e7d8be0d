/**
 * Country codes and names, from the ICU data Node ships (Intl.DisplayNames): no table of our own.
 * Names are recognised in the languages sites write addresses in most.
 */
const NAME_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv', 'da'];
const ALIASES: Record<string, string> = {
  usa: 'US',
  'u.s.a.': 'US',
  'united states of america': 'US',
  uk: 'GB',
  'great britain': 'GB',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  holland: 'NL',
};

let codesByName: Map<string, string> | null = null;
let english: Intl.DisplayNames | null = null;

function englishNames(): Intl.DisplayNames {
  english ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  return english;
}

function nameIndex(): Map<string, string> {
  if (codesByName) return codesByName;
  const index = new Map<string, string>(Object.entries(ALIASES));
  const displays = NAME_LANGUAGES.map(
    (language) => new Intl.DisplayNames([language], { type: 'region', fallback: 'none' }),
  );
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      for (const display of displays) {
        const name = display.of(code);
        if (name && !index.has(name.toLowerCase())) index.set(name.toLowerCase(), code);
      }
    }
  }
  codesByName = index;
  return index;
}

/** True for an assigned ISO 3166-1 alpha-2 code ("DE"), false for "XX". */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false;
  try {
    return englishNames().of(code) !== undefined;
  } catch {
    return false;
  }
}

/** "DE", "de", "Germany", "Deutschland" → "DE"; undefined when not a country. */
export function countryCodeOf(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text || text.length > 60) return undefined;
  if (/^[A-Za-z]{2}$/.test(text)) return isCountryCode(text.toUpperCase()) ? text.toUpperCase() : undefined;
  return nameIndex().get(text.toLowerCase());
}

/** The English name of a country code ("DE" → "Germany"). */
export function countryNameOf(code: string): string | undefined {
  return isCountryCode(code) ? englishNames().of(code) : undefined;
}
