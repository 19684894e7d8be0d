/**
 * The slug rule (stable identifiers used by the API, lead lists and stored results):
 *
 *   1. Unicode NFKD, then combining marks dropped ("Cfixé" → "Cfixe").
 *   2. Lowercased.
 *   3. Every run of characters other than a-z and 0-9 becomes one "-"; leading and trailing "-" removed.
 *      ("Node.js" → "node-js", "Baidu Analytics (百度统计)" → "baidu-analytics", "A/B Testing" → "a-b-testing").
 *      This is Wappalyzer's own slugify plus step 1, so slugs agree with theirs for ASCII names.
 *   4. A name with nothing left (only non-Latin letters) gets "t-" and the hex FNV-1a hash of the name.
 *   5. Names that reduce to the same slug (the data has 8 such pairs: "FastSpring"/"Fastspring",
 *      "WebSocket"/"Websocket", ...) are ordered by code point; the first keeps the slug and the n-th
 *      gets "-n" ("fastspring", "fastspring-2"). The order depends only on the names, never on file order.
 */
export function baseSlug(name: string): string {
  // NFKD leaves ASCII as it is, and almost every name is ASCII: skipping it there saves start-up time.
  const decomposed = NON_ASCII.test(name) ? name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : name;
  const slug = decomposed
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || `t-${fnv1a(name)}`;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Slugs for a set of names, disambiguated by rule 5 above. */
export function assignSlugs(names: readonly string[]): Map<string, string> {
  const byBase = new Map<string, string[]>();
  for (const name of names) {
    const base = baseSlug(name);
    const group = byBase.get(base);
    if (group) group.push(name);
    else byBase.set(base, [name]);
  }
  const slugs = new Map<string, string>();
  for (const [base, group] of byBase) {
    group.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    group.forEach((name, index) => slugs.set(name, index === 0 ? base : `${base}-${index + 1}`));
  }
  return slugs;
}

function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
