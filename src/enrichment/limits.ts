/**
 * Bounds that keep hostile pages (huge documents, thousands of links, deep or broken JSON-LD) from
 * making the enrichment expensive. Every extractor reads its input through these caps, and every
 * output field is capped in length and count.
 */
export const LIMITS = {
  /** Pages read per site (a crawl has at most 25). */
  pages: 25,
  /** Characters of a page's HTML parsed (the fetcher caps bodies at FETCH_MAX_BODY_BYTES already). */
  htmlChars: 3_000_000,
  /** Characters of visible text kept per page. */
  textChars: 200_000,
  /** Anchors kept per page. */
  anchors: 3_000,
  /** JSON-LD blocks read per page, and characters of each. */
  jsonLdBlocks: 20,
  jsonLdChars: 200_000,
  /** Depth and node count walked in one page's structured data (JSON-LD and microdata together). */
  structuredDepth: 10,
  structuredNodes: 500,
  /** Microdata properties kept per page, and characters of each value. */
  microdataProperties: 2_000,
  valueChars: 1_000,
  /** Headings kept per page. */
  headings: 50,
  /** Text segments kept per page for team-page structure. */
  segments: 5_000,
  /** Values per output list (phones, emails, handles per network, locations, keywords, employees...). */
  values: 10,
  employees: 25,
  schemaOrgTypes: 20,
  /** Longest string kept in a text field (title, description, about...). */
  fieldChars: 500,
} as const;

/** White space that collapsing to single spaces changes: a run of two, or one that is not " ". */
const SPACE_TO_COLLAPSE = /\s\s|[^\S ]/;

/** Collapses whitespace, trims and cuts a text to `max` characters; undefined when nothing is left. */
export function cleanText(value: unknown, max: number = LIMITS.fieldChars): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Most values hold single spaces only: one test instead of a replacement per space.
  const text = (SPACE_TO_COLLAPSE.test(value) ? value.replace(/\s+/g, ' ') : value).trim();
  if (text === '') return undefined;
  return text.length > max ? text.slice(0, max).trimEnd() : text;
}

/** Adds values to a set until it holds `max`; returns false once full. */
export function addCapped<T>(set: Set<T>, value: T | undefined, max: number): boolean {
  if (set.size >= max) return false;
  if (value !== undefined) set.add(value);
  return set.size < max;
}

/** A list, or undefined when empty (absent fields, not empty placeholders). */
export function nonEmpty<T>(values: Iterable<T>): T[] | undefined {
  const list = [...values];
  return list.length > 0 ? list : undefined;
}
