import { LIMITS } from './limits';

/** A microdata item as a plain node, shaped like JSON-LD ("@type" and property → values). */
export interface MicrodataItem {
  '@type': string[];
  [property: string]: unknown;
}

/** Where an itemprop's value comes from, by element (HTML Living Standard, "microdata" values). */
const URL_VALUE_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  img: 'src',
  audio: 'src',
  embed: 'src',
  iframe: 'src',
  source: 'src',
  track: 'src',
  video: 'src',
  object: 'data',
};

interface TextProperty {
  depth: number;
  item: MicrodataItem;
  names: string[];
  text: string;
}

/** Text collectors open at once: deeper nesting of text-valued itemprops is ignored (hostile pages). */
const MAX_OPEN_TEXT_PROPERTIES = 20;

/**
 * Builds microdata items while the page document is read: `itemscope` opens an item (a property of
 * the enclosing item when it also has `itemprop`), `itemprop` values come from `content`, the
 * element's URL attribute, `datetime`, `value`, or its text. `itemref` is not followed. Only the
 * open items and text-valued properties are tracked (by element depth, which the reader gives: an
 * element without itemprop or itemscope costs no call), so deeply nested markup costs no more than
 * flat markup; bounded by LIMITS.
 */
export class MicrodataCollector {
  private readonly items: { depth: number; item: MicrodataItem }[] = [];
  private readonly texts: TextProperty[] = [];
  private readonly topLevel: MicrodataItem[] = [];
  private properties = 0;

  /** An element with itemprop or itemscope opens at `depth` (1 for a root element). */
  open(depth: number, name: string, attributes: Record<string, string>, baseUrl: string): void {
    const parent = this.items[this.items.length - 1]?.item;
    const itemprop = attributes.itemprop;
    const props = itemprop ? itemprop.split(/\s+/).filter(Boolean).slice(0, 5) : [];
    if (attributes.itemscope !== undefined) {
      if (this.items.length >= LIMITS.structuredDepth * 4) return;
      const item: MicrodataItem = { '@type': typesOf(attributes.itemtype) };
      if (parent && props.length > 0) for (const prop of props) this.add(parent, prop, item);
      else if (!parent && this.topLevel.length < LIMITS.structuredNodes) this.topLevel.push(item);
      else return;
      this.items.push({ depth, item });
    } else if (parent && props.length > 0) {
      const value = attributeValue(name, attributes, baseUrl);
      if (value !== undefined) for (const prop of props) this.add(parent, prop, value);
      else if (this.texts.length < MAX_OPEN_TEXT_PROPERTIES)
        this.texts.push({ depth, item: parent, names: props, text: '' });
    }
  }

  /** Whether a text-valued property is open (else text() does nothing, and its text need not be copied). */
  collectsText(): boolean {
    return this.texts.length > 0;
  }

  text(data: string): void {
    for (const property of this.texts) {
      if (property.text.length < LIMITS.valueChars) property.text += data;
    }
  }

  /** Any element closes at `depth`: the items and properties opened at that depth or deeper end. */
  close(depth: number): void {
    while (this.items.length > 0 && this.items[this.items.length - 1].depth >= depth) this.items.pop();
    while (this.texts.length > 0 && this.texts[this.texts.length - 1].depth >= depth) {
      const property = this.texts.pop()!;
      const value = property.text.replace(/\s+/g, ' ').trim().slice(0, LIMITS.valueChars);
      for (const name of property.names) this.add(property.item, name, value);
    }
  }

  result(): MicrodataItem[] {
    return this.topLevel;
  }

  private add(item: MicrodataItem, prop: string, value: unknown): void {
    if (this.properties >= LIMITS.microdataProperties || RESERVED.has(prop)) return;
    this.properties++;
    const current = item[prop];
    if (current === undefined) item[prop] = value;
    else if (Array.isArray(current)) current.push(value);
    else item[prop] = [current, value];
  }
}

/** Names that would clash with the node's shape or its prototype. */
const RESERVED = new Set(['@type', '__proto__', 'constructor', 'prototype']);

function typesOf(itemtype: string | undefined): string[] {
  return (itemtype ?? '').split(/\s+/).filter(Boolean).slice(0, 5);
}

function attributeValue(
  name: string,
  attributes: Record<string, string>,
  baseUrl: string,
): string | undefined {
  if (attributes.content !== undefined) return attributes.content.slice(0, LIMITS.valueChars);
  const urlAttribute = URL_VALUE_ATTRIBUTE[name];
  if (urlAttribute) {
    const raw = attributes[urlAttribute];
    if (raw === undefined) return '';
    try {
      return new URL(raw, baseUrl).href.slice(0, LIMITS.valueChars);
    } catch {
      return raw.slice(0, LIMITS.valueChars);
    }
  }
  if (name === 'time' && attributes.datetime !== undefined) return attributes.datetime;
  if ((name === 'data' || name === 'meter') && attributes.value !== undefined) return attributes.value;
  return undefined;
}
