import { LIMITS } from './limits';
import type { MicrodataItem } from './microdata';
import type { PageDocument } from './page-document';

/** One schema.org node found on a page (JSON-LD or microdata), with its types without the vocabulary prefix. */
export interface SchemaNode {
  types: string[];
  props: Record<string, unknown>;
  /** The page it was found on. */
  pageUrl: string;
}

/**
 * Every schema.org node of a page: each JSON-LD block parsed (with a light repair of the two
 * mistakes sites make most, trailing commas and raw line breaks inside strings; a block that still
 * does not parse is skipped), arrays and `@graph` unwrapped, nested objects with a type collected
 * as nodes of their own, and the microdata items likewise. Bounded by LIMITS (depth, node count).
 */
export function schemaNodesOf(doc: PageDocument): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > LIMITS.structuredDepth || nodes.length >= LIMITS.structuredNodes) return;
    if (Array.isArray(value)) {
      for (const entry of value.slice(0, LIMITS.structuredNodes)) visit(entry, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const types = typesOf(value['@type']);
    if (types.length > 0) nodes.push({ types, props: value, pageUrl: doc.url });
    for (const [key, child] of Object.entries(value)) {
      if (key === '@type' || key === '@context') continue;
      if (typeof child === 'object' && child !== null) visit(child, depth + 1);
    }
  };
  for (const block of doc.jsonLd) visit(parseJsonLd(block), 0);
  for (const item of doc.microdata) visit(item as MicrodataItem, 0);
  return nodes;
}

/** JSON.parse, then one repair attempt; undefined when the block is not JSON. */
export function parseJsonLd(block: string): unknown {
  const text = block
    .trim()
    .replace(/^(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
    .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)$/, '')
    .trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.replace(/[\r\n\t]+/g, ' ').replace(/,\s*([}\]])/g, '$1'));
    } catch {
      return undefined;
    }
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "@type" as a list of bare type names ("https://schema.org/Organization" → "Organization"). */
export function typesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  const types: string[] = [];
  for (const entry of list.slice(0, 5)) {
    if (typeof entry !== 'string') continue;
    const bare = entry.trim().replace(/^(?:https?:\/\/(?:www\.)?schema\.org\/|schema:)/i, '');
    if (/^[A-Za-z][A-Za-z0-9]{0,60}$/.test(bare)) types.push(bare);
  }
  return types;
}

/** A property's values as a list (schema.org allows one value or many). */
export function valuesOf(props: Record<string, unknown>, property: string): unknown[] {
  const value = props[property];
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value.slice(0, 50) : [value];
}

/** A property's first text value: a string or number, or a node's `name` / `@value`. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (isRecord(value)) {
    for (const key of ['@value', 'name']) {
      const inner = value[key];
      if (typeof inner === 'string' && inner.trim()) return inner.trim();
    }
  }
  return undefined;
}

/** The first text value of a property. */
export function firstText(props: Record<string, unknown>, property: string): string | undefined {
  for (const value of valuesOf(props, property)) {
    const text = textOf(value);
    if (text !== undefined) return text;
  }
  return undefined;
}
