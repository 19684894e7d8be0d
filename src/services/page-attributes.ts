import type { FetchedPage } from '../fetch';

/**
 * The optional field sets of Live v2 and Crawl v2 (`sets=`), read from what the crawler fetched.
 * Only sets the service can fill honestly from a site's own pages are offered.
 */
export const FIELD_SETS = ['meta', 'locale', 'email', 'phone', 'social'] as const;
export type FieldSet = (typeof FIELD_SETS)[number];

export interface PageAttributes {
  title?: string;
  description?: string;
  language?: string;
  email?: string[];
  phone?: string[];
  linkedin?: string[];
  twitter?: string[];
  facebook?: string[];
}

const MAX_SCAN = 1_000_000;
const MAX_VALUES = 10;

export function titleOf(html: string): string | undefined {
  const match = /<title[^>]{0,200}>([^<]{0,500})<\/title>/i.exec(html.slice(0, MAX_SCAN));
  return match ? decodeEntities(match[1]).trim().replace(/\s+/g, ' ') || undefined : undefined;
}

export function attributesOf(pages: readonly FetchedPage[], sets: readonly FieldSet[]): PageAttributes {
  const out: PageAttributes = {};
  const want = new Set(sets);
  const root = pages[0];
  if (!root) return out;
  if (want.has('meta')) {
    out.title = titleOf(root.input.html);
    const description = metaContent(root.input.html, 'description');
    if (description) out.description = description;
  }
  if (want.has('locale')) out.language = root.languages[0];
  const links = pages.flatMap((p) => p.links);
  if (want.has('email')) {
    const found = new Set<string>();
    for (const page of pages) {
      for (const m of page.input.html
        .slice(0, MAX_SCAN)
        .matchAll(/(?:mailto:)?([a-z0-9._%+-]{1,64}@[a-z0-9.-]{1,200}\.[a-z]{2,24})/gi)) {
        if (!/\.(png|jpe?g|gif|svg|webp)$/i.test(m[1])) found.add(m[1].toLowerCase());
        if (found.size >= MAX_VALUES) break;
      }
    }
    out.email = [...found];
  }
  if (want.has('phone')) {
    const found = new Set<string>();
    for (const page of pages) {
      for (const m of page.input.html
        .slice(0, MAX_SCAN)
        .matchAll(/href\s*=\s*["']tel:([+0-9().\s-]{5,30})["']/gi)) {
        found.add(m[1].replace(/[^+0-9]/g, ''));
        if (found.size >= MAX_VALUES) break;
      }
    }
    out.phone = [...found];
  }
  if (want.has('social')) {
    out.linkedin = handles(links, /^https?:\/\/(?:[a-z]{2,3}\.)?linkedin\.com\/(?:company|in)\/([^/?#]+)/i);
    out.twitter = handles(
      links,
      /^https?:\/\/(?:www\.)?(?:twitter|x)\.com\/([A-Za-z0-9_]{1,15})(?:[/?#]|$)/i,
    );
    out.facebook = handles(links, /^https?:\/\/(?:www\.|m\.)?facebook\.com\/([^/?#]+)/i);
  }
  return out;
}

function handles(links: readonly string[], pattern: RegExp): string[] {
  const found = new Set<string>();
  for (const link of links) {
    const m = pattern.exec(link);
    if (m && !['sharer', 'share', 'intent', 'home', 'sharer.php'].includes(m[1].toLowerCase()))
      found.add(m[1]);
    if (found.size >= MAX_VALUES) break;
  }
  return [...found];
}

function metaContent(html: string, name: string): string | undefined {
  const head = html.slice(0, MAX_SCAN);
  const re = /<meta\b([^>]{0,1000})>/gi;
  for (const m of head.matchAll(re)) {
    const attrs = m[1];
    if (new RegExp(`\\bname\\s*=\\s*["']?${name}["'\\s/]`, 'i').test(attrs + ' ')) {
      const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(attrs);
      const value = content ? (content[1] ?? content[2]) : undefined;
      if (value) return decodeEntities(value).trim().slice(0, 500);
    }
  }
  return undefined;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&#(\d{1,6});/g, (_, n: string) =>
      String.fromCodePoint(Number(n) <= 0x10ffff ? Number(n) : 0xfffd),
    );
}
