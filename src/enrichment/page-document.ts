import {
  attributeOf,
  attributesOf,
  decodedTextPieces,
  IMPLIED,
  MarkupWalk,
  parsedFor,
  parsePageHtml,
  TOKEN,
  TOKEN_FLAG,
  type ParsedHtml,
} from '../html';
import { lastEntityEnd, simpleEntityAt } from '../html/markup-entities';
import { LIMITS } from './limits';
import { MicrodataCollector, type MicrodataItem } from './microdata';
import { BLANK_PIECE, PageText, PLAIN_PIECE } from './page-text';

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
  /** Runs of text with their element, in document order (none when the page is read without them). */
  segments: TextSegment[];
}

/** What an element is to the page document, as bits: its text is hidden, it is a block, it starts a segment. */
const SKIPS = 1;
const BLOCK = 2;
const SEGMENT_BREAK = 4;
/** Above those bits, which of the elements read for their attributes or text it is (0: none). */
const ROLE_SHIFT = 3;
const HTML = 1;
const TITLE = 2;
const META = 3;
const LINK = 4;
const SCRIPT = 5;
const ANCHOR = 6;
const HEADING = 7;
const SKIPPED = ['script', 'style', 'noscript', 'template', 'svg', 'head', 'title', 'textarea', 'select'];
const BLOCKS = [
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
];
/** Inline elements that still start a new text segment (team cards: <strong>Name</strong><span>Title</span>). */
const SEGMENT_BREAKS = ['span', 'strong', 'b', 'em', 'small', 'a'];
/**
 * The three bits and the role of each name (any name not listed is none of them): the walk finds
 * them in the look-up it makes for the name's own rule.
 */
const TAG_FLAGS = new Map<string, number>();
for (const [names, flag] of [
  [SKIPPED, SKIPS],
  [BLOCKS, BLOCK],
  [SEGMENT_BREAKS, SEGMENT_BREAK],
  [['html'], HTML << ROLE_SHIFT],
  [['title'], TITLE << ROLE_SHIFT],
  [['meta'], META << ROLE_SHIFT],
  [['link'], LINK << ROLE_SHIFT],
  [['script'], SCRIPT << ROLE_SHIFT],
  [['a'], ANCHOR << ROLE_SHIFT],
  [['h1', 'h2'], HEADING << ROLE_SHIFT],
] as const)
  for (const name of names) TAG_FLAGS.set(name, (TAG_FLAGS.get(name) ?? 0) | flag);
const NOT_SPACE = /\S/;
/** White space that collapsing to single spaces changes: a run of two, or one that is not " ". */
const SPACE_TO_COLLAPSE = /\s\s|[^\S ]/;
const NO_ATTRIBUTES: readonly string[] = [];
// Compiled once: a regex literal is a new RegExp object each time its element is read.
const ALTERNATE_REL = /(^|\s)alternate(\s|$)/i;
const JSON_LD_TYPE = /^\s*application\/ld\+json\s*$/i;

/**
 * Reads one page and keeps, within LIMITS, what the extractors need. The page is read once for all
 * readers (src/html); give its reading when there is one (`parsed`, read from this very `html`).
 * Without `withSegments` its text segments are not kept.
 */
export function parsePageDocument(
  url: string,
  html: string,
  parsed?: ParsedHtml,
  withSegments = true,
): PageDocument {
  // Past LIMITS.htmlChars only the head is read: a reading of the whole page cannot serve.
  if (html.length > LIMITS.htmlChars)
    return new PageDocumentReader(url, parsePageHtml(html.slice(0, LIMITS.htmlChars)), withSegments).read();
  return new PageDocumentReader(url, parsedFor(html, parsed), withSegments).read();
}

/**
 * The page document from the page's reading: its tokens walked with htmlparser2's nesting (a
 * browser-tolerant reading, no DOM: a multi-megabyte page costs a single linear pass). Attributes
 * are decoded only for the elements read, and text is copied only where it is kept.
 */
class PageDocumentReader extends MarkupWalk {
  private readonly doc: PageDocument;
  /** Told plain pieces only when segments are kept (they trust it instead of a test of their own). */
  private readonly text: PageText;
  /** Open elements whose text is not visible (script, style, head...). */
  private skipDepth = 0;
  private inTitle = false;
  private title = '';
  private jsonLdText: string | null = null;
  private heading: { tag: string; text: string } | null = null;
  private anchor: Anchor | null = null;
  /**
   * The open segment's text pieces from its first one holding more than white space (white space
   * before it is trimmed anyway: indentation between tags costs no copy and no regex).
   */
  private readonly segmentParts: string[] = [];
  /** Characters of the open segment, the white space before its parts included (its cap counts them). */
  private segmentLength = 0;
  /** Whether the open segment's first part is a PLAIN_PIECE of the page text. */
  private segmentPlain = false;
  private readonly microdata = new MicrodataCollector();
  /**
   * TAG_FLAGS of the open elements, innermost last: the walk closes elements in the reverse order
   * it opens them, so each close pops its element's flags instead of looking them up again.
   */
  private readonly openFlags: number[] = [];
  /** The first "&" of the html at or after ampersandFrom (the html's length when there is none). */
  private ampersandFrom = 0;
  private ampersandAt = -1;
  /** Where each entity of the text being decoded in place starts and ends, and its character (reused by every text). */
  private readonly entityStarts: number[] = [];
  private readonly entityEnds: number[] = [];
  private readonly entityCharacters: string[] = [];

  constructor(
    private readonly url: string,
    parsed: ParsedHtml,
    private readonly withSegments: boolean,
  ) {
    super(parsed.html, parsed.tokens, TAG_FLAGS);
    this.text = new PageText(LIMITS.textChars, withSegments);
    this.doc = {
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
  }

  read(): PageDocument {
    this.walk();
    this.endSegmentIn(this.stack.length > 0 ? this.stack[this.stack.length - 1] : '');
    const doc = this.doc;
    doc.text = this.text.toString();
    doc.microdata = this.microdata.result();
    return doc;
  }

  protected onOpen(name: string, token: number, flags: number): void {
    this.openFlags.push(flags);
    // The segment so far sat in the parent (the element is not on the stack yet).
    if (flags & (BLOCK | SEGMENT_BREAK)) {
      this.endSegmentIn(this.stack.length > 0 ? this.stack[this.stack.length - 1] : '');
      if (flags & BLOCK) this.text.pushNewline();
    }
    // The attributes are loaded only for the elements that read them: microdata (itemprop or
    // itemscope, as the token's flags tell) and the roles.
    if (token !== IMPLIED && (this.tokens.kinds[token] & TOKEN_FLAG.MICRODATA) !== 0)
      this.microdata.open(
        this.stack.length + 1,
        name,
        attributesOf(this.tokens.attrs[token] as string[]),
        this.url,
      );
    const role = flags >> ROLE_SHIFT;
    const raw = role === 0 || token === IMPLIED ? NO_ATTRIBUTES : (this.tokens.attrs[token] as string[]);
    const doc = this.doc;
    switch (role) {
      case HTML:
        doc.htmlLang ??= attributeOf(raw, 'lang');
        break;
      case TITLE:
        this.inTitle = doc.title === undefined;
        break;
      case META: {
        const key = (
          attributeOf(raw, 'name') ??
          attributeOf(raw, 'property') ??
          attributeOf(raw, 'http-equiv')
        )?.toLowerCase();
        const content = key ? attributeOf(raw, 'content') : undefined;
        if (key && content !== undefined && doc.meta.size < 200) {
          const values = doc.meta.get(key) ?? [];
          if (values.length < 10) values.push(content.slice(0, LIMITS.valueChars));
          doc.meta.set(key, values);
        }
        break;
      }
      case LINK: {
        const hreflang = attributeOf(raw, 'hreflang');
        if (ALTERNATE_REL.test(attributeOf(raw, 'rel') ?? '') && hreflang && doc.hreflangs.length < 100)
          doc.hreflangs.push(hreflang);
        break;
      }
      case SCRIPT:
        if (JSON_LD_TYPE.test(attributeOf(raw, 'type') ?? '') && doc.jsonLd.length < LIMITS.jsonLdBlocks)
          this.jsonLdText = '';
        break;
      case ANCHOR: {
        const href = attributeOf(raw, 'href');
        if (href !== undefined && doc.anchors.length < LIMITS.anchors)
          this.anchor = { href: href.slice(0, 2048), text: '' };
        break;
      }
      case HEADING:
        this.heading = { tag: name, text: '' };
        break;
    }
    if (flags & SKIPS) this.skipDepth++;
  }

  protected onClose(name: string): void {
    const flags = this.openFlags.pop() as number;
    if (flags & SKIPS) this.skipDepth = Math.max(0, this.skipDepth - 1);
    // The segment so far sat in this element.
    if (flags & (BLOCK | SEGMENT_BREAK)) {
      this.endSegmentIn(name);
      if (flags & BLOCK) this.text.pushNewline();
    }
    const role = flags >> ROLE_SHIFT;
    if (role === TITLE && this.inTitle) {
      this.inTitle = false;
      this.doc.title = this.title;
    } else if (role === SCRIPT && this.jsonLdText !== null) {
      if (this.jsonLdText.length < LIMITS.jsonLdChars) this.doc.jsonLd.push(this.jsonLdText);
      this.jsonLdText = null;
    } else if (role === ANCHOR && this.anchor) {
      this.doc.anchors.push(this.anchor);
      this.anchor = null;
    } else if (this.heading && name === this.heading.tag) {
      if (this.doc.headings.length < LIMITS.headings) this.doc.headings.push(this.heading.text);
      this.heading = null;
    }
    this.microdata.close(this.stack.length + 1);
  }

  protected onText(kind: number, from: number, to: number): void {
    // Hidden text is neither kept nor decoded.
    if (this.skipDepth > 0 && this.jsonLdText === null && !this.inTitle) return;
    if (kind === TOKEN.RAW || !this.holdsAmpersand(from, to)) this.textEvent(this.html, from, to);
    else if (!this.simpleTextEvents(from, to)) {
      const raw = this.html.slice(from, to);
      for (const piece of decodedTextPieces(raw, kind === TOKEN.RCDATA))
        this.textEvent(piece, 0, piece.length);
    }
  }

  /**
   * html[from, to), which holds an "&" (the first at ampersandAt), as its text events when every
   * entity in it is simple: the text before an entity, when not empty, then the entity's character,
   * and so on, as decodedTextPieces gives them, but read in the html itself (no copy of the text, no
   * list of pieces, no match object). False, with no event, when an entity is not simple: all are
   * read before the first event.
   */
  private simpleTextEvents(from: number, to: number): boolean {
    const html = this.html;
    const starts = this.entityStarts;
    const ends = this.entityEnds;
    const characters = this.entityCharacters;
    let count = 0;
    for (let at = this.ampersandAt; at < to;) {
      const character = simpleEntityAt(html, at, to);
      if (character === null) return false;
      const end = lastEntityEnd();
      starts[count] = at;
      ends[count] = end;
      characters[count] = character;
      count++;
      at = this.holdsAmpersand(end, to) ? this.ampersandAt : to;
    }
    let last = from;
    for (let n = 0; n < count; n++) {
      if (starts[n] > last) this.textEvent(html, last, starts[n]);
      const character = characters[n];
      this.textEvent(character, 0, character.length);
      last = ends[n];
    }
    if (to > last) this.textEvent(html, last, to);
    return true;
  }

  /**
   * Whether html[from, to) holds an "&": the first one at or after a text's start is looked for in
   * the html itself, once for all the texts before it (they come in document order), with no copy.
   */
  private holdsAmpersand(from: number, to: number): boolean {
    if (from < this.ampersandFrom || from > this.ampersandAt) {
      const at = this.html.indexOf('&', from);
      this.ampersandFrom = from;
      this.ampersandAt = at < 0 ? this.html.length : at;
    }
    return this.ampersandAt < to;
  }

  /**
   * One of htmlparser2's text events, source[from, to) (the caps grow per event, as they did on its
   * Parser): copied only for the readers that keep it.
   */
  private textEvent(source: string, from: number, to: number): void {
    if (this.jsonLdText !== null) {
      if (this.jsonLdText.length < LIMITS.jsonLdChars) this.jsonLdText += source.slice(from, to);
      return;
    }
    if (this.inTitle) {
      if (this.title.length < LIMITS.valueChars) this.title += source.slice(from, to);
      return;
    }
    if (this.skipDepth > 0) return;
    const piece = this.text.pushRange(source, from, to);
    const segment = this.withSegments && this.segmentLength < LIMITS.valueChars;
    const anchor = this.anchor;
    const heading = this.heading;
    const microdata = this.microdata.collectsText();
    if (!segment && anchor === null && heading === null && !microdata) return;
    const data = source.slice(from, to);
    if (microdata) this.microdata.text(data);
    if (segment) {
      this.segmentLength += data.length;
      if (this.segmentParts.length > 0) this.segmentParts.push(data);
      else if (piece === PLAIN_PIECE || (piece !== BLANK_PIECE && NOT_SPACE.test(data))) {
        this.segmentParts.push(data);
        this.segmentPlain = piece === PLAIN_PIECE;
      }
    }
    if (anchor && anchor.text.length < 300) anchor.text += data;
    if (heading && heading.text.length < 300) heading.text += data;
  }

  /** Ends the open segment, which sat in `tag`: kept when it holds more than white space. */
  private endSegmentIn(tag: string): void {
    const parts = this.segmentParts;
    this.segmentLength = 0;
    if (parts.length === 0) return;
    let value: string;
    // Most segments are one piece holding no white space but single spaces: trimmed, it is done.
    if (parts.length === 1 && this.segmentPlain) value = parts[0].trim();
    else {
      // Trimmed first: most segments then hold no white space but single spaces, and need no copy.
      value = (parts.length === 1 ? parts[0] : parts.join('')).trim();
      if (SPACE_TO_COLLAPSE.test(value)) value = value.replace(/\s+/g, ' ');
    }
    parts.length = 0;
    if (this.doc.segments.length < LIMITS.segments)
      this.doc.segments.push({ tag, text: value.slice(0, LIMITS.valueChars) });
  }
}

/** The first content value of a meta key. */
export function metaValue(doc: PageDocument, key: string): string | undefined {
  return doc.meta.get(key)?.[0];
}
