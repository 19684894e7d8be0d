import { parsedFor, parsePageHtml, replayMarkup, type ParsedHtml } from '../html';
import { LIMITS } from './limits';
import { MicrodataCollector, type MicrodataItem } from './microdata';

/** One anchor of a page: its raw href and its text. */
export interface Anchor {
  href: string;
  text: string;
}

/** A run of text and the element it sits in (team pages are read from "name, then title" runs). */
export interface TextSegment {
  tag: string;
  text: string;
}

/** Everything the extractors read from one page, from a single tolerant parse. */
export interface PageDocument {
  url: string;
  title?: string;
  /** <html lang> as written. */
  htmlLang?: string;
  /** <meta name|property|http-equiv> lowercased → content values, in document order. */
  meta: Map<string, string[]>;
  /** hreflang values of <link rel="alternate">. */
  hreflangs: string[];
  /** Raw text of each <script type="application/ld+json">. */
  jsonLd: string[];
  /** Top-level microdata items. */
  microdata: MicrodataItem[];
  anchors: Anchor[];
  /** Texts of h1 and h2 headings. */
  headings: string[];
  /** Visible text, block elements separated by newlines. */
  text: string;
  segments: TextSegment[];
}

const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'head',
  'title',
  'textarea',
  'select',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'tr',
  'td',
  'th',
  'table',
  'section',
  'article',
  'header',
  'footer',
  'nav',
  'aside',
  'main',
  'address',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'dd',
  'dt',
  'dl',
  'figure',
  'figcaption',
  'blockquote',
  'form',
  'hr',
  'pre',
]);
/** Elements whose attributes the page document reads (besides microdata's itemprop/itemscope). */
const ATTRIBUTES_READ = new Set(['html', 'meta', 'link', 'script', 'a']);
const NOT_SPACE = /\S/;
/** Inline elements that still start a new text segment (team cards: <strong>Name</strong><span>Title</span>). */
const SEGMENT_BREAKS = new Set(['span', 'strong', 'b', 'em', 'small', 'a']);

/**
 * Reads one page and keeps, within LIMITS, what the extractors need. The page is read once for all
 * readers (src/html); give its reading when there is one (`parsed`, read from this very `html`).
 */
export function parsePageDocument(url: string, html: string, parsed?: ParsedHtml): PageDocument {
  // Past LIMITS.htmlChars only the head is read: a reading of the whole page cannot serve.
  if (html.length > LIMITS.htmlChars)
    return pageDocumentOf(url, parsePageHtml(html.slice(0, LIMITS.htmlChars)));
  return pageDocumentOf(url, parsedFor(html, parsed));
}

/**
 * The page document from the page's reading, whose markup tokens are replayed as htmlparser2's
 * events (a browser-tolerant reading, no DOM: a multi-megabyte page costs a single linear pass).
 */
function pageDocumentOf(url: string, parsed: ParsedHtml): PageDocument {
  const doc: PageDocument = {
    url,
    meta: new Map(),
    hreflangs: [],
    jsonLd: [],
    microdata: [],
    anchors: [],
    headings: [],
    text: '',
    segments: [],
  };
  const text: string[] = [];
  let textLength = 0;
  let skipDepth = 0;
  let inTitle = false;
  let title = '';
  let jsonLdText: string | null = null;
  let heading: { tag: string; text: string } | null = null;
  let anchor: Anchor | null = null;
  let segment = '';
  const openTags: string[] = [];
  const microdata = new MicrodataCollector();

  const pushText = (chunk: string): void => {
    if (textLength >= LIMITS.textChars) return;
    const piece = chunk.slice(0, LIMITS.textChars - textLength);
    text.push(piece);
    textLength += piece.length;
  };
  const flushSegment = (): void => {
    if (segment === '') return; // most block boundaries close no text: no regex for them
    // A run of white space alone (the indentation between tags) gives no segment: one test, no copy.
    const blank = !NOT_SPACE.test(segment);
    const value = blank ? '' : segment.replace(/\s+/g, ' ').trim();
    segment = '';
    if (value && doc.segments.length < LIMITS.segments) {
      doc.segments.push({
        tag: openTags[openTags.length - 1] ?? '',
        text: value.slice(0, LIMITS.valueChars),
      });
    }
  };

  replayMarkup(parsed.html, parsed.tokens, {
    needsAttributes(name, raw) {
      if (ATTRIBUTES_READ.has(name)) return true;
      // Microdata reads the attributes of an element with itemprop or itemscope only.
      for (let k = 0; k < raw.length; k += 2)
        if (raw[k] === 'itemprop' || raw[k] === 'itemscope') return true;
      return false;
    },
    onopentag(name, attributes) {
      if (BLOCKS.has(name)) {
        flushSegment();
        pushText('\n');
      } else if (SEGMENT_BREAKS.has(name)) flushSegment();
      openTags.push(name);
      microdata.open(name, attributes, url);
      switch (name) {
        case 'html':
          doc.htmlLang ??= attributes.lang;
          break;
        case 'title':
          inTitle = doc.title === undefined;
          break;
        case 'meta': {
          const key = (attributes.name ?? attributes.property ?? attributes['http-equiv'])?.toLowerCase();
          if (key && attributes.content !== undefined && doc.meta.size < 200) {
            const values = doc.meta.get(key) ?? [];
            if (values.length < 10) values.push(attributes.content.slice(0, LIMITS.valueChars));
            doc.meta.set(key, values);
          }
          break;
        }
        case 'link':
          if (
            /(^|\s)alternate(\s|$)/i.test(attributes.rel ?? '') &&
            attributes.hreflang &&
            doc.hreflangs.length < 100
          )
            doc.hreflangs.push(attributes.hreflang);
          break;
        case 'script':
          if (
            /^\s*application\/ld\+json\s*$/i.test(attributes.type ?? '') &&
            doc.jsonLd.length < LIMITS.jsonLdBlocks
          )
            jsonLdText = '';
          break;
        case 'a':
          if (attributes.href !== undefined && doc.anchors.length < LIMITS.anchors) {
            anchor = { href: attributes.href.slice(0, 2048), text: '' };
          }
          break;
        case 'h1':
        case 'h2':
          heading = { tag: name, text: '' };
          break;
      }
      if (SKIPPED.has(name)) skipDepth++;
    },
    ontext(data) {
      if (jsonLdText !== null) {
        if (jsonLdText.length < LIMITS.jsonLdChars) jsonLdText += data;
        return;
      }
      if (inTitle) {
        if (title.length < LIMITS.valueChars) title += data;
        return;
      }
      if (skipDepth > 0) return;
      microdata.text(data);
      pushText(data);
      if (segment.length < LIMITS.valueChars) segment += data;
      if (anchor && anchor.text.length < 300) anchor.text += data;
      if (heading && heading.text.length < 300) heading.text += data;
    },
    onclosetag(name) {
      if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
      if (BLOCKS.has(name)) {
        flushSegment();
        pushText('\n');
      } else if (SEGMENT_BREAKS.has(name)) flushSegment();
      if (name === 'title' && inTitle) {
        inTitle = false;
        doc.title = title;
      } else if (name === 'script' && jsonLdText !== null) {
        if (jsonLdText.length < LIMITS.jsonLdChars) doc.jsonLd.push(jsonLdText);
        jsonLdText = null;
      } else if (name === 'a' && anchor) {
        doc.anchors.push(anchor);
        anchor = null;
      } else if (heading && name === heading.tag) {
        if (doc.headings.length < LIMITS.headings) doc.headings.push(heading.text);
        heading = null;
      }
      microdata.close();
      // htmlparser2 closes implied elements itself, so the stack follows the real nesting.
      openTags.pop();
    },
  });
  flushSegment();
  doc.text = text
    .join('')
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/\n(?:[ \t]*\n)+/g, '\n');
  doc.microdata = microdata.result();
  return doc;
}

/** The first content value of a meta key. */
export function metaValue(doc: PageDocument, key: string): string | undefined {
  return doc.meta.get(key)?.[0];
}
