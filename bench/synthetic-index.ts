/**
 * A synthetic index written with set-based SQL (never through the API, so a million sites take
 * minutes, not days): `sites` sites with countries, TLDs, languages and imported traffic ranks for
 * 70%, and 8 technology slots per site drawn from 500 real slugs with a Zipf-like spread (the n-th
 * slug about 1/n as common as the first; slots landing on the same slug collapse, so about 7.2
 * technologies a site). A fifth of the slugs are members of the largest category, spread over the
 * ranks. The versions each technology runs now (site_technology_live_versions) are its version, and
 * 1 in SECOND_VERSION_EVERY of the sites running the most common slug run a second version of it at
 * once (a theme's copy of a library beside a plugin's). Shared by the lists, index and exposure
 * benchmarks.
 */
import type { Database } from '../src/storage/database';
import type { Fingerprints } from '../src/detection';
import { bulkLoad, type BulkQuery } from './mariadb-bulk-load';

export const SLUGS = 500;
const BUCKETS = 10_000;
const SLOTS = 8;
/** Sites per statement of the MariaDB load. */
const MARIADB_CHUNK = 50_000;

export interface SyntheticIndex {
  /** The slugs by popularity, most common first. */
  slugs: string[];
  /** The largest category (100+ members) and its members. */
  category: { slug: string; members: string[] };
}

/** The slugs and the largest category of the synthetic index (the same for every build). */
export function syntheticIndexPlan(
  fingerprints: Fingerprints,
): SyntheticIndex & { zipf: [number, string][] } {
  const category = fingerprints.categories
    .map((c) => ({ slug: c.slug, members: fingerprints.technologiesInCategory(c.slug).map((t) => t.slug) }))
    .filter((c) => c.members.length >= 100)
    .sort((a, b) => b.members.length - a.members.length)[0];
  const others = fingerprints.technologies.map((t) => t.slug).filter((s) => !category.members.includes(s));
  // Popular slugs first (1/rank): the category's members are spread over the ranks.
  const slugs: string[] = [];
  for (let i = 0; slugs.length < SLUGS; i++) {
    if (i % 5 === 0 && category.members[i / 5] !== undefined) slugs.push(category.members[i / 5]);
    else slugs.push(others.shift()!);
  }
  const harmonic = slugs.reduce((sum, _, i) => sum + 1 / (i + 1), 0);
  const zipf: [number, string][] = [];
  slugs.forEach((slug, i) => {
    const count = Math.max(1, Math.round((BUCKETS / harmonic) * (1 / (i + 1))));
    for (let c = 0; c < count && zipf.length < BUCKETS; c++) zipf.push([zipf.length, slug]);
  });
  while (zipf.length < BUCKETS) zipf.push([zipf.length, slugs[SLUGS - 1 - (zipf.length % 50)]]);
  return { slugs, category, zipf };
}

/** 1 in this many of the sites running the most common slug (with a version) run a second one. */
export const SECOND_VERSION_EVERY = 20;

/**
 * The second version: of which slug (by default the most common) and, as SQL over the site's
 * `site_id` and `version`, which version.
 */
export interface SecondVersion {
  slug?: string;
  version: string;
}

/**
 * Builds the index; `reshape`, when given, then changes its rows before its indexes are built (on
 * MariaDB within the bulk load, so a benchmark's own updates of a million rows do not maintain the
 * secondary indexes row by row either); the versions on the sites now are written last, from the
 * rows as reshaped, with `second` as the second version.
 */
export async function buildSyntheticIndex(
  db: Database,
  fingerprints: Fingerprints,
  sites: number,
  reshape?: (q: BulkQuery, plan: SyntheticIndex) => Promise<void>,
  second: SecondVersion = { version: "CASE version WHEN '1.12.4' THEN '3.6.0' ELSE '1.12.4' END" },
): Promise<SyntheticIndex> {
  const mysql = db.dialect === 'mysql';
  const { slugs, category, zipf } = syntheticIndexPlan(fingerprints);
  const t = performance.now();
  const now = new Date();
  const stamp = mysql ? now : now.toISOString().replace('T', ' ').replace('Z', '');
  const old = mysql ? new Date(Date.UTC(2024, 0, 1)) : '2024-01-01 00:00:00.000';
  if (mysql) {
    await bulkLoad(db, ['sites', 'site_technologies', 'site_technology_live_versions'], async (q) => {
      await loadMariaDb(q, zipf, sites, stamp, old);
      await reshape?.(q, { slugs, category });
      await insertLiveVersions(q, true, { slug: slugs[0], ...second });
    });
  } else {
    await createZipf((sql, params) => db.query(sql, params), zipf);
    const digits = Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ');
    const places = Math.ceil(Math.log10(sites));
    const number = Array.from({ length: places }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
    const from = Array.from({ length: places }, (_, i) => `(${digits}) d${i}`).join(', ');
    await db.query(`${insertSites(false)} FROM (SELECT ${number} AS n FROM ${from}) g WHERE n < ?`, [
      stamp,
      stamp,
      old,
      stamp,
      sites,
    ]);
    await db.query(INSERT_LANGUAGES);
    for (let j = 0; j < SLOTS; j++) await db.query(insertTechnologies(false, j, ''), [old, stamp]);
    const q: BulkQuery = (sql, params) => db.query(sql, params);
    await reshape?.(q, { slugs, category });
    await insertLiveVersions(q, false, { slug: slugs[0], ...second });
  }
  const [{ n: techRows }] = (await db.query('SELECT COUNT(*) AS n FROM site_technologies')) as {
    n: number;
  }[];
  console.log(
    `synthetic index: ${sites} sites, ${Number(techRows)} site technologies (${(Number(techRows) / sites).toFixed(1)}/site), ` +
      `${SLUGS} slugs, generated in ${((performance.now() - t) / 1000).toFixed(1)} s on ${db.dialect}`,
  );
  if (db.dialect === 'sqlite') await db.query('ANALYZE');
  else
    await db.query('ANALYZE TABLE sites, site_technologies, site_technology_live_versions, site_languages');

  return { slugs, category };
}

/**
 * MariaDB: the sites from the server's sequence engine, in id order, then the languages and the
 * technology slots a range of sites at a time (all slots of a range together, so the unique index
 * (site_id, slug) that drops duplicate slugs grows at its end instead of everywhere at once).
 */
async function loadMariaDb(
  q: BulkQuery,
  zipf: [number, string][],
  sites: number,
  stamp: Date | string,
  old: Date | string,
): Promise<void> {
  await createZipf(q, zipf);
  for (let from = 0; from < sites; from += MARIADB_CHUNK) {
    const to = Math.min(sites, from + MARIADB_CHUNK) - 1;
    await q(`${insertSites(true)} FROM seq_${from}_to_${to} g ORDER BY g.seq`, [stamp, stamp, old, stamp]);
  }
  const [{ top }] = (await q('SELECT MAX(id) AS top FROM sites')) as { top: number }[];
  for (let from = 0; from < top; from += MARIADB_CHUNK) {
    const range = `s.id > ${from} AND s.id <= ${from + MARIADB_CHUNK}`;
    await q(`${INSERT_LANGUAGES} s WHERE ${range}`);
    for (let j = 0; j < SLOTS; j++) await q(insertTechnologies(true, j, `WHERE ${range}`), [old, stamp]);
  }
}

async function createZipf(q: BulkQuery, zipf: [number, string][]): Promise<void> {
  await q('CREATE TABLE bench_zipf (bucket INT PRIMARY KEY, slug VARCHAR(120))');
  for (let i = 0; i < zipf.length; i += 500) {
    const part = zipf.slice(i, i + 500);
    await q(
      `INSERT INTO bench_zipf (bucket, slug) VALUES ${part.map(() => '(?, ?)').join(',')}`,
      part.flat(),
    );
  }
}

/** The sites' insert, up to its row source: a relation `g` with the site number `n`. */
function insertSites(mysql: boolean): string {
  const n = mysql ? 'g.seq' : 'n';
  const concat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
  const tld = `CASE ${n} % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END`;
  return `INSERT INTO sites (hostname, domain, tld, is_subdomain, language, languages, country, title, hits,
       traffic_rank, rank_source, industry, company_size, language_count, sets_mask, enriched_at,
       crawl_attempted_at, first_seen_at, last_analyzed_at)
     SELECT ${concat("'s'", n, tld)}, ${concat("'s'", n, tld)}, ${tld}, 0,
            CASE ${n} % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, '[]',
            CASE ${n} % 10 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'GB' ELSE 'US' END, NULL, ${n} % 1000,
            CASE WHEN ${n} % 10 < 7 THEN ${n} + 1 ELSE NULL END, CASE WHEN ${n} % 10 < 7 THEN 'import' ELSE NULL END,
            NULL, NULL, CASE WHEN ${n} % 13 = 0 THEN 2 ELSE 1 END, ${n} % 4096, ?, ?, ?, ?`;
}

const INSERT_LANGUAGES = `INSERT INTO site_languages (language, site_id)
     SELECT CASE id % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, id FROM sites`;

/** Technology slot `j` of every site (`where`: of some), a slug drawn by a hash of the site's id. */
function insertTechnologies(mysql: boolean, j: number, where: string): string {
  const [prime, offset] = [
    [7919, 13],
    [104729, 71],
    [1299709, 5],
    [15485863, 977],
    [32452843, 31],
    [49979687, 7],
    [67867967, 3],
    [86028121, 1],
  ][j];
  return `${mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE'} INTO site_technologies (site_id, slug, name, version,
         version_key, versions, confidence, root_path, first_seen_at, confirmed_at)
       SELECT s.id, z.slug, z.slug,
              CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '3.6.0' WHEN 2 THEN '4.9.1' ELSE '5.2' END,
              CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '000003.000006.000000' WHEN 2 THEN '000004.000009.000001'
                   ELSE '000005.000002' END,
              '[]', 100, 1, ?, ?
         FROM sites s JOIN bench_zipf z ON z.bucket = (s.id * ${prime} + ${offset}) % ${BUCKETS} ${where}`;
}

/**
 * The versions on the sites now: each technology's version ('' without one), and `second.version`
 * on 1 in SECOND_VERSION_EVERY of the sites running `second.slug` with a version (the same version
 * drawn twice stays one row). On MariaDB a range of sites at a time.
 */
async function insertLiveVersions(
  q: BulkQuery,
  mysql: boolean,
  second: Required<SecondVersion>,
): Promise<void> {
  const ignore = mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  const [{ top }] = (await q('SELECT MAX(id) AS top FROM sites')) as { top: number | string | null }[];
  const step = mysql ? MARIADB_CHUNK : Number(top ?? 0) + 1;
  for (let from = 0; from < Number(top ?? 0); from += step) {
    const range = `site_id > ${from} AND site_id <= ${from + step}`;
    await q(
      `${ignore} INTO site_technology_live_versions (site_id, slug, version, evidence_paths)
         SELECT site_id, slug, version, '["/"]' FROM site_technologies WHERE ${range}`,
    );
    await q(
      `${ignore} INTO site_technology_live_versions (site_id, slug, version, evidence_paths)
         SELECT site_id, slug, ${second.version}, '["/"]' FROM site_technologies
          WHERE slug = ? AND version <> '' AND site_id % ${SECOND_VERSION_EVERY} = 7 AND ${range}`,
      [second.slug],
    );
  }
}
