/** Extensions of links that are not pages: the crawler does not spend its page budget on them. */
const NON_HTML_EXTENSIONS = new Set(
  (
    'pdf doc docx xls xlsx ppt pptx odt ods rtf csv txt xml json rss atom js mjs css map ' +
    'jpg jpeg png gif webp avif svg ico bmp tif tiff heic mp3 wav ogg m4a flac mp4 m4v webm mov avi mkv wmv ' +
    'zip gz tgz bz2 xz 7z rar tar dmg exe msi apk deb rpm iso bin woff woff2 ttf otf eot'
  ).split(' '),
);

/** True when the path's extension says the link is a file, not a page. */
export function looksLikeNonHtml(url: string): boolean {
  const { pathname } = new URL(url);
  const extension = /\.([a-z0-9]{1,5})$/i.exec(pathname)?.[1]?.toLowerCase();
  return extension !== undefined && NON_HTML_EXTENSIONS.has(extension);
}

/**
 * The identity of a page for deduplication: lowercase scheme and host (URL does it), no default
 * port, no fragment, no tracking parameters (utm_*, gclid, fbclid: same page, other campaign),
 * query parameters sorted (?a=1&b=2 and ?b=2&a=1 are one page), no empty "?".
 */
export function normaliseCrawlUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/^(utm_\w+|gclid|fbclid|msclkid)$/i.test(name)) parsed.searchParams.delete(name);
  }
  parsed.searchParams.sort();
  const text = parsed.href;
  return text.endsWith('?') ? text.slice(0, -1) : text;
}

/** The product token robots.txt groups name ("TechIntelBot" of "Mozilla/5.0 (compatible; TechIntelBot/1.0)"). */
export function robotsProductToken(userAgent: string): string {
  const compatible = /compatible;\s*([^/;\s)]+)/i.exec(userAgent);
  return compatible?.[1] ?? userAgent.split('/')[0].trim();
}
