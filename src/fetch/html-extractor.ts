import {
  attributeOf,
  parsePageHtml,
  TOKEN,
  TOKEN_FLAG,
  tokenKind,
  tokenSlot,
  type ParsedHtml,
} from '../html';
import { NAME_SLOTS, nameSlot } from '../html/known-names';
import { LinkResolver } from './link-resolver';

/** What the fetcher needs from a page's markup (detection reads the HTML itself). */
export interface HtmlFacts {
  /** Absolute http(s) targets of <a>/<area>, without fragment, in document order, deduplicated. */
  links: string[];
  /** Absolute <script src> URLs. */
  scriptSrc: string[];
  /** Absolute <link rel="stylesheet" href> URLs. */
  stylesheets: string[];
  /** Every other absolute URL the page loads or points at (img, iframe, form, link, media...). */
  resources: string[];
  /** <html lang>, as written. */
  htmlLang?: string;
  /** <meta property="og:locale"> and <meta http-equiv="content-language"> values, as written. */
  metaLanguages: string[];
}

/** Bounds that keep a hostile page from making the extraction itself expensive. */
const MAX_URLS_PER_KIND = 2000;

/** Attributes that hold a URL the browser would load, by element. */
const RESOURCE_ATTRIBUTES = new Map<string, readonly string[]>([
  ['img', ['src']],
  ['iframe', ['src']],
  ['frame', ['src']],
  ['form', ['action']],
  ['source', ['src']],
  ['video', ['src', 'poster']],
  ['audio', ['src']],
  ['embed', ['src']],
  ['object', ['data']],
  ['track', ['src']],
]);

/**
 * Extracts links and resource URLs from the page's one reading (src/html): the start tags of its
 * markup tokens, attributes decoded as htmlparser2 decodes them (the tolerant, browser-like
 * tokenizer this extraction was first written on; a regex over tags would mishandle comments,
 * scripts containing "<a href" and attribute quoting). No DOM is built.
 */
export function extractHtmlFacts(html: string, pageUrl: string): HtmlFacts {
  return htmlFactsOf(parsePageHtml(html), pageUrl);
}

/** What the extraction does with a start tag, by tag name (a tag not in the table: its srcset only). */
const TAG = { BASE: 1, HTML: 2, LINK: 3, SCRIPT: 4, META: 5, ANCHOR: 6, RESOURCE: 7 } as const;
const TAGS = new Map<string, number>([
  ...[...RESOURCE_ATTRIBUTES.keys()].map((name): [string, number] => [name, TAG.RESOURCE]),
  ['base', TAG.BASE],
  ['html', TAG.HTML],
  ['link', TAG.LINK],
  ['script', TAG.SCRIPT],
  ['meta', TAG.META],
  ['a', TAG.ANCHOR],
  ['area', TAG.ANCHOR],
]);
/** TAGS by known-names slot (0: not in TAGS): a token with a slot needs no look-up of its name. */
const TAGS_BY_SLOT = new Uint8Array(NAME_SLOTS);
for (const [name, tag] of TAGS) {
  const slot = nameSlot(name, 0, name.length);
  if (slot >= 0) TAGS_BY_SLOT[slot] = tag;
}

/** The facts of a page already read (the fetcher reads it once and hands the reading along). */
export function htmlFactsOf(parsed: ParsedHtml, pageUrl: string): HtmlFacts {
  const links = new UrlSet();
  const scriptSrc = new UrlSet();
  const stylesheets = new UrlSet();
  const resources = new UrlSet();
  let htmlLang: string | undefined;
  const metaLanguages: string[] = [];

  let resolver = new LinkResolver(pageUrl);
  // Attributes are read one by one from the token's raw list, decoded as htmlparser2 decodes them
  // (no attributes object per tag, no decoding of the attributes nobody reads).
  const resolved = (raw: readonly string[], attribute: string): string | undefined =>
    resolver.resolve(attributeOf(raw, attribute));
  const addSrcset = (raw: readonly string[]): void => {
    const srcset = attributeOf(raw, 'srcset');
    if (srcset) {
      for (const candidate of srcset.split(','))
        resources.add(resolver.resolve(candidate.trim().split(/\s+/)[0]));
    }
  };

  // Start tags only: the elements htmlparser2 would open implicitly (<p> for a stray </p>, <br> for
  // </br>) carry no URL.
  const { kinds, names, attrs } = parsed.tokens;
  const count = kinds.length; // read once: a typed array's length read checks its buffer
  for (let k = 0; k < count; k++) {
    const entry = kinds[k];
    if (tokenKind(entry) !== TOKEN.START) continue;
    const name = names[k];
    const slot = tokenSlot(entry);
    const tag = slot >= 0 ? TAGS_BY_SLOT[slot] : (TAGS.get(name) ?? 0);
    // Any other tag counts only for a srcset, which the token's flags tell of: most tags' attributes
    // are not even loaded.
    if (tag === 0) {
      if (entry & TOKEN_FLAG.SRCSET) addSrcset(attrs[k] as string[]);
      continue;
    }
    const raw = attrs[k] as string[];
    switch (tag) {
      case TAG.BASE: {
        const base = resolved(raw, 'href');
        if (base !== undefined) resolver = new LinkResolver(base);
        continue;
      }
      case TAG.HTML:
        htmlLang ??= attributeOf(raw, 'lang');
        continue;
      case TAG.ANCHOR:
        links.add(resolved(raw, 'href'));
        continue;
      case TAG.SCRIPT:
        scriptSrc.add(resolved(raw, 'src'));
        continue;
      case TAG.META: {
        const content = attributeOf(raw, 'content');
        if (attributeOf(raw, 'property')?.toLowerCase() === 'og:locale' && content) {
          metaLanguages.push(content);
        } else if (attributeOf(raw, 'http-equiv')?.toLowerCase() === 'content-language' && content) {
          metaLanguages.push(...content.split(','));
        }
        continue;
      }
      case TAG.LINK:
        if (/(^|\s)stylesheet(\s|$)/i.test(attributeOf(raw, 'rel') ?? '')) {
          stylesheets.add(resolved(raw, 'href'));
          continue;
        }
        resources.add(resolved(raw, 'href')); // any other link is a resource
        break;
      default:
        for (const attribute of RESOURCE_ATTRIBUTES.get(name) as readonly string[])
          resources.add(resolved(raw, attribute));
    }
    if (entry & TOKEN_FLAG.SRCSET) addSrcset(raw);
  }

  return {
    links: links.values(),
    scriptSrc: scriptSrc.values(),
    stylesheets: stylesheets.values(),
    resources: resources.values(),
    htmlLang,
    metaLanguages,
  };
}

class UrlSet {
  private readonly urls = new Set<string>();

  add(url: string | undefined): void {
    if (url !== undefined && this.urls.size < MAX_URLS_PER_KIND) this.urls.add(url);
  }

  values(): string[] {
    return [...this.urls];
  }
}
