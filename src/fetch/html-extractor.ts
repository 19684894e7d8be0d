import { Parser } from 'htmlparser2';

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
 * Extracts links and resource URLs with htmlparser2, a streaming tokenizer: it is tolerant of broken
 * markup like a browser's, allocates no DOM (jsdom takes ~100x longer and much more memory on a
 * multi-megabyte page), and is the parser cheerio and most crawlers are built on. A regex over tags
 * would be faster still but mishandles comments, scripts containing "<a href" and attribute quoting.
 */
export function extractHtmlFacts(html: string, pageUrl: string): HtmlFacts {
  let base = pageUrl;
  const links = new UrlSet();
  const scriptSrc = new UrlSet();
  const stylesheets = new UrlSet();
  const resources = new UrlSet();
  let htmlLang: string | undefined;
  const metaLanguages: string[] = [];

  const resolve = (value: string | undefined): string | undefined => {
    const trimmed = value?.trim();
    if (!trimmed || /^(javascript|mailto|tel|data|about|blob):/i.test(trimmed)) return undefined;
    try {
      const url = new URL(trimmed, base);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
      url.hash = '';
      return url.href;
    } catch {
      return undefined;
    }
  };

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        switch (name) {
          case 'base':
            base = resolve(attributes.href) ?? base;
            return;
          case 'html':
            htmlLang ??= attributes.lang;
            return;
          case 'a':
          case 'area':
            links.add(resolve(attributes.href));
            return;
          case 'script':
            scriptSrc.add(resolve(attributes.src));
            return;
          case 'meta':
            if (attributes.property?.toLowerCase() === 'og:locale' && attributes.content) {
              metaLanguages.push(attributes.content);
            } else if (attributes['http-equiv']?.toLowerCase() === 'content-language' && attributes.content) {
              metaLanguages.push(...attributes.content.split(','));
            }
            return;
        }
        if (name === 'link' && /(^|\s)stylesheet(\s|$)/i.test(attributes.rel ?? '')) {
          stylesheets.add(resolve(attributes.href));
          return;
        }
        for (const attribute of RESOURCE_ATTRIBUTES[name] ?? [])
          resources.add(resolve(attributes[attribute]));
        if (attributes.srcset) {
          for (const candidate of attributes.srcset.split(','))
            resources.add(resolve(candidate.trim().split(/\s+/)[0]));
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);

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
