/**
 * A synthetic index written with set-based SQL (never through the API, so a million sites take
 * minutes, not days): `sites` sites with countries, TLDs, languages and imported traffic ranks for
 * 70%, and 8 technology slots per site drawn from 500 real slugs with a Zipf-like spread (the n-th
 * slug about 1/n as common as the first; slots landing on the same slug collapse, so about 7.2
 * technologies a site). A fifth of the slugs are members of the largest category, spread over the
 * ranks. Shared by the lists and index benchmarks.
 */
import type { Database } from '../src/storage/database';
import type { Fingerprints } from '../src/detection';

export const SLUGS = 500;
const BUCKETS = 10_000;
const SLOTS = 8;

export interface SyntheticIndex {
  /** The slugs by popularity, most common first. */
  slugs: string[];
  /** The largest category (100+ members) and its members. */
  category: { slug: string; members: string[] };
}

export async function buildSyntheticIndex(
  db: Database,
  fingerprints: Fingerprints,
  sites: number,
): Promise<SyntheticIndex> {
  const mysql = db.dialect === 'mysql';
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

  const t = performance.now();
  await db.query('CREATE TABLE bench_zipf (bucket INT PRIMARY KEY, slug VARCHAR(120))');
  for (let i = 0; i < zipf.length; i += 500) {
    const part = zipf.slice(i, i + 500);
    await db.query(
      `INSERT INTO bench_zipf (bucket, slug) VALUES ${part.map(() => '(?, ?)').join(',')}`,
      part.flat(),
    );
  }
  const digits = Array.from({ length: 10 }, (_, d) => `SELECT ${d} AS d`).join(' UNION ALL ');
  const places = Math.ceil(Math.log10(sites));
  const number = Array.from({ length: places }, (_, i) => `d${i}.d * ${10 ** i}`).join(' + ');
  const from = Array.from({ length: places }, (_, i) => `(${digits}) d${i}`).join(', ');
  const concat = (...parts: string[]) => (mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
  const now = new Date();
  const stamp = mysql ? now : now.toISOString().replace('T', ' ').replace('Z', '');
  const old = mysql ? new Date(Date.UTC(2024, 0, 1)) : '2024-01-01 00:00:00.000';
  await db.query(
    `INSERT INTO sites (hostname, domain, tld, is_subdomain, language, languages, country, title, hits,
       traffic_rank, rank_source, industry, company_size, language_count, sets_mask, enriched_at,
       crawl_attempted_at, first_seen_at, last_analyzed_at)
     SELECT ${concat("'s'", 'n', "CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END")},
            ${concat("'s'", 'n', "CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END")},
            CASE n % 4 WHEN 0 THEN '.com' WHEN 1 THEN '.de' WHEN 2 THEN '.net' ELSE '.io' END, 0,
            CASE n % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, '[]',
            CASE n % 10 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'GB' ELSE 'US' END, NULL, n % 1000,
            CASE WHEN n % 10 < 7 THEN n + 1 ELSE NULL END, CASE WHEN n % 10 < 7 THEN 'import' ELSE NULL END,
            NULL, NULL, CASE WHEN n % 13 = 0 THEN 2 ELSE 1 END, n % 4096, ?, ?, ?, ?
       FROM (SELECT ${number} AS n FROM ${from}) g WHERE n < ?`,
    [stamp, stamp, old, stamp, sites],
  );
  await db.query(
    `INSERT INTO site_languages (language, site_id)
     SELECT CASE id % 5 WHEN 0 THEN 'de' WHEN 1 THEN 'fr' ELSE 'en' END, id FROM sites`,
  );
  const ignore = mysql ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
  for (let j = 0; j < SLOTS; j++) {
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
    await db.query(
      `${ignore} INTO site_technologies (site_id, slug, name, version, version_key, versions, confidence,
         root_path, first_seen_at, confirmed_at)
       SELECT s.id, z.slug, z.slug,
              CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '3.6.0' WHEN 2 THEN '4.9.1' ELSE '5.2' END,
              CASE s.id % 4 WHEN 0 THEN '' WHEN 1 THEN '000003.000006.000000' WHEN 2 THEN '000004.000009.000001'
                   ELSE '000005.000002' END,
              '[]', 100, 1, ?, ?
         FROM sites s JOIN bench_zipf z ON z.bucket = (s.id * ${prime} + ${offset}) % ${BUCKETS}`,
      [old, stamp],
    );
  }
  const [{ n: techRows }] = (await db.query('SELECT COUNT(*) AS n FROM site_technologies')) as {
    n: number;
  }[];
  console.log(
    `synthetic index: ${sites} sites, ${Number(techRows)} site technologies (${(Number(techRows) / sites).toFixed(1)}/site), ` +
      `${SLUGS} slugs, generated in ${((performance.now() - t) / 1000).toFixed(1)} s on ${db.dialect}`,
  );
  if (db.dialect === 'sqlite') await db.query('ANALYZE');
  else await db.query('ANALYZE TABLE sites, site_technologies, site_languages');

  return { slugs, category };
}
