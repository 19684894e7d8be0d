/**
 * Pages that say who runs a site (contact, imprint, about, team, legal), recognised by their URL
 * path in the languages the index meets most. The crawler fetches them before ordinary pages so
 * that the enrichment sees them even when a site has far more links than the page cap.
 *
 * Ranks: 1 contact and imprint (phones, emails, addresses, the legal name), 2 about and team
 * (company facts, people), 3 legal and privacy pages (the controller's name and address).
 */
const RANKED_WORDS: readonly (readonly [rank: number, words: readonly string[]])[] = [
  [
    1,
    [
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
      'impressum',
      'imprint',
      'imprenta',
      'mentions-legales',
      'aviso-legal',
      'note-legali',
      'colofon',
      'legal-notice',
      'site-notice',
      'reach-us',
      'get-in-touch',
      'locations',
      'standorte',
    ],
  ],
  [
    2,
    [
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
      'sobre',
      'chi-siamo',
      'over-ons',
      'om-oss',
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
      'who-we-are',
    ],
  ],
  [
    3,
    [
      'legal',
      'privacy',
      'privacy-policy',
      'datenschutz',
      'datenschutzerklaerung',
      'terms',
      'agb',
      'cgv',
      'disclaimer',
    ],
  ],
];

const RANK_OF_WORD = new Map<string, number>();
for (const [rank, words] of RANKED_WORDS) for (const word of words) RANK_OF_WORD.set(word, rank);

/** Path segments looked at: a contact page sits near the top of a site ("/de/kontakt/", "/company/team"). */
const MAX_SEGMENTS = 3;

/** The URL's rank (1-3, lower first) when its path names such a page; undefined for other pages. */
export function contactPageRank(url: string): number | undefined {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname).toLowerCase();
  } catch {
    return undefined;
  }
  const segments = path.split('/').filter(Boolean).slice(0, MAX_SEGMENTS);
  let best: number | undefined;
  for (const segment of segments) {
    const name = segment.replace(/\.(html?|php|aspx?|jsp)$/, '').replace(/_/g, '-');
    const rank = RANK_OF_WORD.get(name);
    if (rank !== undefined && (best === undefined || rank < best)) best = rank;
  }
  return best;
}
