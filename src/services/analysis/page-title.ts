/** The text of a page's <title>, entities decoded and white space collapsed (the index's site title). */
export function titleOf(html: string): string | undefined {
  const match = /<title[^>]{0,200}>([^<]{0,500})<\/title>/i.exec(html.slice(0, MAX_SCAN));
  return match ? decodeEntities(match[1]).trim().replace(/\s+/g, ' ') || undefined : undefined;
}

const MAX_SCAN = 1_000_000;

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
