/**
 * Pages that say who runs a site (contact, imprint, about, team, legal), recognised by their URL
 * path in the languages the index meets most. The crawler fetches them before ordinary pages so
 * that the enrichment sees them even when a site has far more links than the page cap, and the
 * enrichment reads phone numbers, addresses and people only from them (text elsewhere on a site is
 * too full of numbers that are not phone numbers).
 */
export type PageKind = 'contact' | 'imprint' | 'about' | 'team' | 'legal';

/**
 * The pages whose text segments an extractor reads (team cards, contact.extractor.ts): the site's
 * other pages are read without them.
 */
export const SEGMENTED_KINDS: readonly PageKind[] = ['team', 'about'];

const WORDS: Record<PageKind, readonly string[]> = {
  contact: [
    'contact',
    'contacts',
    'contact-us',
    'contactus',
    'kontakt',
    'kontakty',
    'contacto',
    'contactos',
    'contato',
    'contatti',
    'contatto',
    'yhteystiedot',
    'reach-us',
    'get-in-touch',
    'locations',
    'standorte',
  ],
  imprint: [
    'impressum',
    'imprint',
    'imprenta',
    'mentions-legales',
    'aviso-legal',
    'note-legali',
    'colofon',
    'legal-notice',
    'site-notice',
  ],
  about: [
    'about',
    'about-us',
    'aboutus',
    'company',
    'ueber-uns',
    'uber-uns',
    'über-uns',
    'unternehmen',
    'a-propos',
    'qui-sommes-nous',
    'quienes-somos',
    'sobre-nosotros',
    'chi-siamo',
    'over-ons',
    'om-oss',
    'who-we-are',
  ],
  team: [
    'team',
    'our-team',
    'the-team',
    'people',
    'staff',
    'leadership',
    'management',
    'board',
    'founders',
    'equipe',
    'equipo',
    'mitarbeiter',
  ],
  legal: [
    'legal',
    'privacy',
    'privacy-policy',
    'datenschutz',
    'datenschutzerklaerung',
    'terms',
    'agb',
    'cgv',
  ],
};

/** Crawl order: contact and imprint first (phones, emails, addresses, the legal name), then about and team, then legal. */
const RANK: Record<PageKind, number> = { contact: 1, imprint: 1, about: 2, team: 2, legal: 3 };

const KIND_OF_WORD = new Map<string, PageKind>();
for (const [kind, words] of Object.entries(WORDS) as [PageKind, readonly string[]][])
  for (const word of words) KIND_OF_WORD.set(word, kind);

/** Path segments looked at: such pages sit near the top of a site ("/de/kontakt/", "/company/team"). */
const MAX_SEGMENTS = 3;
const MAX_PATH_LENGTH = 300;

/** The kind of page the URL's path names, the most telling segment winning; undefined for other pages. */
export function pageKindOf(url: string): PageKind | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  return pageKindOfPath(pathname);
}

/** pageKindOf for a URL parsed already: the kind its pathname names. */
export function pageKindOfPath(pathname: string): PageKind | undefined {
  const path = pathname.slice(0, MAX_PATH_LENGTH).toLowerCase();
  let best: PageKind | undefined;
  for (const raw of path.split('/').filter(Boolean).slice(0, MAX_SEGMENTS)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      segment = raw;
    }
    const kind = KIND_OF_WORD.get(segment.replace(/\.(html?|php|aspx?|jsp)$/, '').replace(/_/g, '-'));
    if (kind !== undefined && (best === undefined || RANK[kind] < RANK[best])) best = kind;
  }
  return best;
}

/** The crawl rank (1-3, lower first) of a page that names who runs the site; undefined for other pages. */
export function contactPageRank(url: string): number | undefined {
  const kind = pageKindOf(url);
  return kind === undefined ? undefined : RANK[kind];
}
