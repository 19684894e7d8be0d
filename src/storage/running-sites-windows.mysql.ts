import type { Database } from './database';

/** The pairs and filters of one reverse-query page (see VulnerabilityRepository.runningSites). */
export interface WindowQuery {
  versions: readonly { slug: string; version: string }[];
  afterSiteId: number;
  sites: number;
  /** `AND …` conditions on the site `s` (country, rank), and their values. */
  siteWhere: string;
  siteValues: unknown[];
}

/** A site running one of the pairs (the reverse query's matches, by any plan). */
export interface SiteMatch {
  siteId: number;
  slug: string;
  version: string;
}

/** The first window, in site ids per site wanted: most affected technologies run on many sites. */
const FIRST_WINDOW_PER_SITE = 4;
/** How much a window may grow over the one before it (when that one found too few sites). */
const MOST_GROWTH = 16;
/** Room over the estimate of the window that holds the missing sites. */
const ESTIMATE_MARGIN = 1.5;

/**
 * MariaDB/MySQL: the reverse query's matches read a window of site ids at a time, every pair in one
 * statement (`version IN (…)` per technology, bounded by the window's site ids: one range of
 * idx_site_technology_live_versions_version per pair, read from the index alone; a site running
 * two of the pairs has a row for each), the windows growing
 * with the density of matches until more than a page of sites is known. The page then reads about
 * as many rows as it returns, where a take of `page + 1` rows per pair read pairs × page rows, each
 * sent over the wire and decoded to keep one page (figures: docs/performance.md, Exposure); SQLite,
 * in-process, reads its per-pair takes at a seek each.
 *
 * A window is read whole, so every site up to its end is known with all its pairs; each row's pair
 * is named by the server (FIELD over the technology's versions, the column's own comparison, as
 * `version = ?` compares), so a row is attributed to the pair whose `=` matched it.
 */
export async function matchesByWindow(
  db: Database,
  query: WindowQuery,
): Promise<{ ids: number[]; matches: SiteMatch[]; more: boolean }> {
  const bySlug = new Map<string, string[]>();
  for (const v of query.versions) bySlug.set(v.slug, [...(bySlug.get(v.slug) ?? []), v.version]);
  const slugs = [...bySlug.keys()];
  const marks = (list: readonly unknown[]) => list.map(() => '?').join(', ');
  const pairTerms = slugs.map((slug) => `(t.slug = ? AND t.version IN (${marks(bySlug.get(slug)!)}))`);
  const pairValues = slugs.flatMap((slug) => [slug, ...bySlug.get(slug)!]);
  const technology = `CASE t.slug ${slugs.map((_, n) => `WHEN ? THEN ${n}`).join(' ')} END`;
  const position = `CASE t.slug ${slugs.map((slug) => `WHEN ? THEN FIELD(t.version, ${marks(bySlug.get(slug)!)})`).join(' ')} END`;
  const positionValues = slugs.flatMap((slug) => [slug, ...bySlug.get(slug)!]);
  const join = query.siteWhere ? ' STRAIGHT_JOIN sites s ON s.id = t.site_id' : '';
  const sql =
    `SELECT t.site_id, ${technology} AS technology, ${position} AS position ` +
    `FROM site_technology_live_versions t${join} WHERE (${pairTerms.join(' OR ')}) ` +
    `AND t.site_id > ? AND t.site_id <= ?${query.siteWhere}`;

  const [{ top }] = await db.query<{ top: number | string | null }[]>('SELECT MAX(id) AS top FROM sites');
  const last = Number(top ?? 0);
  const bySite = new Map<number, SiteMatch[]>();
  let from = query.afterSiteId;
  let width = FIRST_WINDOW_PER_SITE * (query.sites + 1);
  while (bySite.size <= query.sites && from < last) {
    const to = Math.min(last, from + width);
    const rows = await db.query<
      { site_id: number | string; technology: number | string; position: number | string }[]
    >(sql, [...slugs, ...positionValues, ...pairValues, from, to, ...query.siteValues]);
    for (const r of rows) {
      const slug = slugs[Number(r.technology)];
      const siteId = Number(r.site_id);
      const list = bySite.get(siteId) ?? [];
      list.push({ siteId, slug, version: bySlug.get(slug)![Number(r.position) - 1] });
      bySite.set(siteId, list);
    }
    const density = bySite.size / (to - query.afterSiteId);
    const missing = query.sites + 1 - bySite.size;
    width =
      density > 0
        ? Math.min(
            width * MOST_GROWTH,
            Math.max(query.sites + 1, Math.ceil((missing / density) * ESTIMATE_MARGIN)),
          )
        : width * MOST_GROWTH;
    from = to;
  }
  const known = [...bySite.keys()].sort((a, b) => a - b);
  const ids = known.slice(0, query.sites);
  const order = new Map(query.versions.map((v, n) => [`${v.slug}\n${v.version}`, n]));
  const rank = (m: SiteMatch) => order.get(`${m.slug}\n${m.version}`)!;
  return {
    ids,
    matches: ids.flatMap((id) => bySite.get(id)!.sort((a, b) => rank(a) - rank(b))),
    more: known.length > ids.length,
  };
}
