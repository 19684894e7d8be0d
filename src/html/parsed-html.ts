import { readMarkup, type LightDocument, type MarkupTokens } from './light-document';

/**
 * A page's HTML read once: the light tree (detection's patterns and CSS selectors) and the markup
 * tokens (the fetcher's links and resources; the enrichment's page document, walked with
 * htmlparser2's nesting). Produced where the page is fetched or first analysed and handed along, so
 * that no reader tokenizes the page again; `html` is the exact string it was read from (a reader
 * given another string parses that one itself).
 */
export interface ParsedHtml {
  readonly html: string;
  readonly light: LightDocument;
  readonly tokens: MarkupTokens;
}

export function parsePageHtml(html: string): ParsedHtml {
  const { light, tokens } = readMarkup(html);
  return { html, light, tokens: tokens as MarkupTokens };
}

/** The parsed page when it was read from this very string, else a fresh reading of `html`. */
export function parsedFor(html: string, parsed: ParsedHtml | undefined): ParsedHtml {
  return parsed !== undefined && parsed.html === html ? parsed : parsePageHtml(html);
}
