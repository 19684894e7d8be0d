import { attributeOf, parsePageHtml, TOKEN, type ParsedHtml } from '../html';
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
const RESOURCE_ATTRIBUTES: Record<string, string[]> = {
  img: ['src'],
  iframe: ['src'],
  frame: ['src'],
  form: ['action'],
  link: ['href'],
  source: ['src'],
  video: ['src', 'poster'],
  audio: ['src'],
  embed: ['src'],
  object: ['data'],
  track: ['src'],
};

/**
 * Extracts links and resource URLs from the page's one reading (src/html): the start tags of its
 * markup tokens, attributes decoded as htmlparser2 decodes them (the tolerant, browser-like
 * tokenizer this extraction was first written on; a regex over tags would mishandle comments,
 * scripts containing "<a href" and attribute quoting). No DOM is built.
 */
export function extractHtmlFacts(html: string, pageUrl: string): HtmlFacts {
  return htmlFactsOf(parsePageHtml(html), pageUrl);
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
  const resolve = (value: string | undefined): string | undefined => resolver.resolve(value);

  // Attributes are read one by one from the token's raw list, decoded as htmlparser2 decodes them
  // (no attributes object per tag, no decoding of the attributes nobody reads).
  const onopentag = (name: string, raw: readonly string[]): void => {
    const get = (attribute: string): string | undefined => attributeOf(raw, attribute);
    switch (name) {
      case 'base':
        {
          const base = resolve(get('href'));
          if (base !== undefined) resolver = new LinkResolver(base);
        }
        return;
      case 'html':
        htmlLang ??= get('lang');
        return;
      case 'a':
      case 'area':
        links.add(resolve(get('href')));
        return;
      case 'script':
        scriptSrc.add(resolve(get('src')));
        return;
      case 'meta': {
        const content = get('content');
        if (get('property')?.toLowerCase() === 'og:locale' && content) {
          metaLanguages.push(content);
        } else if (get('http-equiv')?.toLowerCase() === 'content-language' && content) {
          metaLanguages.push(...content.split(','));
        }
        return;
      }
    }
    if (name === 'link' && /(^|\s)stylesheet(\s|$)/i.test(get('rel') ?? '')) {
      stylesheets.add(resolve(get('href')));
      return;
    }
    for (const attribute of RESOURCE_ATTRIBUTES[name] ?? []) resources.add(resolve(get(attribute)));
    addSrcset(raw);
  };
  const addSrcset = (raw: readonly string[]): void => {
    const srcset = attributeOf(raw, 'srcset');
    if (srcset) {
      for (const candidate of srcset.split(',')) resources.add(resolve(candidate.trim().split(/\s+/)[0]));
    }
  };

  // Start tags only: the elements htmlparser2 would open implicitly (<p> for a stray </p>, <br> for
  // </br>) carry no URL.
  const { kinds, names, attrs } = parsed.tokens;
  for (let k = 0; k < kinds.length; k++) {
    if (kinds[k] !== TOKEN.START) continue;
    const raw = attrs[k] as string[];
    if (INTERESTING.has(names[k])) onopentag(names[k], raw);
    else addSrcset(raw); // any other tag counts only for a srcset
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

/** Tags whose attributes the extraction reads (any other tag counts only for a srcset). */
const INTERESTING = new Set([
  'base',
  'html',
  'a',
  'area',
  'script',
  'meta',
  'link',
  ...Object.keys(RESOURCE_ATTRIBUTES),
]);

class UrlSet {
  private readonly urls = new Set<string>();

  add(url: string | undefined): void {
    if (url !== undefined && this.urls.size < MAX_URLS_PER_KIND) this.urls.add(url);
  }

  values(): string[] {
    return [...this.urls];
  }
}
