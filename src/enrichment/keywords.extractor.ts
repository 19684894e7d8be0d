import { addCapped, cleanText, LIMITS, nonEmpty } from './limits';
import { metaValue } from './page-document';
import type { SiteContext } from './site-context';
import type { KeywordsSet } from './site-enrichment';

/** Words that carry no topic, in the languages the index meets most (and the web's own filler). */
const STOP_WORDS = new Set(
  (
    'a an the and or of for to in on at by with from as is are be this that it its our your you we us my ' +
    'home homepage welcome page site website official online news blog contact about more new best top all ' +
    'der die das und oder für zu im in am an auf mit von ist sind ein eine einer unser unsere ihr sie wir startseite willkommen ' +
    'le la les et ou de des du pour à au aux en sur avec un une nos notre votre vous accueil bienvenue ' +
    'el los las y o para en con por un una nuestro nuestra su inicio bienvenido ' +
    'il lo gli e o di da per con su un una nostro nostra benvenuto ' +
    'het een en of voor met op van ons onze welkom ' +
    'o os as e ou para com em um uma nosso nossa bem-vindo'
  ).split(' '),
);

/** Words kept from the title and headings. */
const MAX_TERMS = 6;

/**
 * keywords: the home page's meta keywords (as the site lists them), then its most frequent topic
 * words from the title and the h1/h2 headings (stop words of nine languages and the site's own
 * name left out), lowercased, up to ten in all. Absent when the home page names no topic.
 */
export function extractKeywords(context: SiteContext): KeywordsSet {
  const home = context.home?.doc;
  if (!home) return {};
  const keywords = new Set<string>();
  for (const raw of (metaValue(home, 'keywords') ?? '').split(/[,;]/).slice(0, 50)) {
    const keyword = cleanText(raw, 60)?.toLowerCase();
    if (keyword && /\p{L}/u.test(keyword)) addCapped(keywords, keyword, LIMITS.values);
  }
  const own = new Set((context.domainLabel ?? '').toLowerCase().split(/[-_]+/));
  const counts = new Map<string, number>();
  for (const text of [home.title ?? '', ...home.headings].slice(0, LIMITS.headings)) {
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []) {
      if (word.length < 3 || word.length > 40 || STOP_WORDS.has(word) || own.has(word) || /^\d+$/.test(word))
        continue;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  const listed = [...keywords].join(' ').split(/\s+/);
  const terms = [...counts.entries()]
    .filter(([term]) => !listed.includes(term))
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_TERMS);
  for (const [term] of terms) addCapped(keywords, term, LIMITS.values);
  const list = nonEmpty(keywords);
  return list ? { keywords: list } : {};
}
