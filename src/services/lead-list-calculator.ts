import type { EntityManager } from 'typeorm';
import { Database, dbDate } from '../db/database';
import { ENRICHMENT_SETS } from '../enrichment';
import { setsMaskFor } from './site-sets';
import type { ListRequest, ListTechnology } from './lead-list-request';
import { versionKeyRange } from './version-key';

/** What a calculation found: websites per technology, per field set, and in all. */
export interface ListCounts {
  rows: Record<string, number>;
  setRows: Record<string, number>;
  websites: number;
}

/** Sorts sites without a rank after every ranked one. */
const NO_RANK = 2_147_483_647;

interface Sql {
  text: string;
  params: unknown[];
}

/** months ago, in UTC calendar months (the lookup's age window). */
function monthsAgo(now: Date, months: number): Date {
  const at = new Date(now);
  at.setUTCMonth(at.getUTCMonth() - months);
  return at;
}

/**
 * Computes a list as set-based SQL over the index, one INSERT … SELECT per technology into
 * lead_list_sites (the same statements on SQLite and MariaDB): candidates come from the list index
 * (slug, confirmed_at, version_key, site_id) of site_technologies; version filters are key ranges
 * (version-key.ts); the other technologies of `and`/`not`, keywords, languages and other lists are
 * EXISTS / NOT EXISTS conditions; merge (one site per domain) and subset/subsetSlice (a slice of the
 * results sorted by traffic rank) are window functions. Nothing is loaded into memory.
 */
export class LeadListCalculator {
  constructor(private readonly db: Database) {}

  async calculate(listId: string, request: ListRequest, now: Date): Promise<ListCounts> {
    const from = dbDate(this.db, monthsAgo(now, request.maxAge));
    const to = dbDate(this.db, monthsAgo(now, request.minAge));
    await this.db.query('DELETE FROM lead_list_sites WHERE list_id = ?', [listId]);
    const techs =
      request.matchTechnologies === 'not' ? request.technologies.slice(0, 1) : request.technologies;
    for (const tech of techs) {
      const sql = this.insertFor(listId, tech, request, from, to);
      // One statement per technology: on SQLite a short write each, so crawls writing to the index
      // wait (busy_timeout) for one technology at most, never for the whole list.
      await this.db.transaction((m: EntityManager) => m.query(sql.text, sql.params));
    }
    return this.counts(listId, request);
  }

  async counts(listId: string, request: ListRequest): Promise<ListCounts> {
    const rows: Record<string, number> = {};
    for (const tech of request.technologies) rows[tech.slug] = 0;
    const perSlug = (await this.db.query(
      'SELECT slug, COUNT(*) AS n FROM lead_list_sites WHERE list_id = ? GROUP BY slug',
      [listId],
    )) as { slug: string; n: number | string }[];
    for (const row of perSlug) rows[row.slug] = Number(row.n);
    if (request.matchTechnologies === 'not')
      for (const tech of request.technologies.slice(1)) delete rows[tech.slug];
    const masks = (await this.db.query(
      `SELECT s.sets_mask AS mask, COUNT(*) AS n
         FROM (SELECT DISTINCT site_id FROM lead_list_sites WHERE list_id = ?) d
         JOIN sites s ON s.id = d.site_id
        GROUP BY s.sets_mask`,
      [listId],
    )) as { mask: number | string; n: number | string }[];
    let websites = 0;
    const setRows: Record<string, number> = {};
    for (const set of request.sets) setRows[set] = 0;
    for (const row of masks) {
      const n = Number(row.n);
      websites += n;
      for (const set of request.sets)
        if (Number(row.mask) & (1 << ENRICHMENT_SETS.indexOf(set))) setRows[set] += n;
    }
    return { rows, setRows, websites };
  }

  /** The condition that a site (alias `site`) has technology `tech` inside the age window. */
  private technologyOn(
    alias: string,
    siteRef: string,
    tech: ListTechnology,
    rootPath: boolean,
    from: unknown,
    to: unknown,
  ): Sql {
    const params: unknown[] = [tech.slug, from, to];
    let text = `${alias}.slug = ? AND ${alias}.confirmed_at >= ? AND ${alias}.confirmed_at <= ?`;
    if (siteRef) text += ` AND ${alias}.site_id = ${siteRef}`;
    if (tech.version !== null) {
      const range = versionKeyRange(tech.operator, tech.version);
      if (range?.from !== undefined) {
        text += ` AND ${alias}.version_key >= ?`;
        params.push(range.from);
      }
      if (range?.below !== undefined) {
        text += ` AND ${alias}.version_key < ?`;
        params.push(range.below);
      }
    }
    if (rootPath) text += ` AND ${alias}.root_path = 1`;
    return { text, params };
  }

  private insertFor(listId: string, tech: ListTechnology, r: ListRequest, from: unknown, to: unknown): Sql {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: Sql) => {
      where.push(sql.text);
      params.push(...sql.params);
    };
    add(this.technologyOn('st', '', tech, r.rootPath, from, to));
    const others = r.technologies.filter((t) => t.slug !== tech.slug);
    if (r.matchTechnologies === 'and') {
      for (const other of others) {
        const on = this.technologyOn('o', 'st.site_id', other, r.rootPath, from, to);
        add({ text: `EXISTS (SELECT 1 FROM site_technologies o WHERE ${on.text})`, params: on.params });
      }
    }
    if (r.matchTechnologies === 'not') {
      for (const other of others) {
        const on = this.technologyOn('o', 'st.site_id', other, false, from, to);
        add({ text: `NOT EXISTS (SELECT 1 FROM site_technologies o WHERE ${on.text})`, params: on.params });
      }
    }
    const list = (values: readonly unknown[]) => values.map(() => '?').join(', ');
    const country = r.countries.length
      ? { text: `s.country IN (${list(r.countries)})`, params: r.countries }
      : null;
    let language: Sql | null = null;
    if (r.languages.length) {
      const parts: string[] = [];
      const lp: unknown[] = [];
      for (const code of r.languages) {
        if (code.includes('-')) {
          parts.push('l.language = ?');
          lp.push(code);
        } else {
          parts.push('(l.language = ? OR l.language LIKE ?)');
          lp.push(code, `${code}-%`);
        }
      }
      language = {
        text: `EXISTS (SELECT 1 FROM site_languages l WHERE l.site_id = s.id AND (${parts.join(' OR ')}))`,
        params: lp,
      };
    }
    if (country && language) {
      add({
        text: `(${country.text} ${r.matchCountryLanguage ? 'AND' : 'OR'} ${language.text})`,
        params: [...country.params, ...language.params],
      });
    } else if (country) add(country);
    const tld = r.tlds.length ? { text: `s.tld IN (${list(r.tlds)})`, params: r.tlds } : null;
    // Datasets with matchLanguageTld false: the language or the TLD is enough.
    const eitherLanguageOrTld = Boolean(r.languageOrTld && language && tld && !country);
    if (eitherLanguageOrTld && language && tld)
      add({ text: `(${language.text} OR ${tld.text})`, params: [...language.params, ...tld.params] });
    else if (language && !country) add(language);
    const positive = r.keywords.filter((k) => !k.startsWith('not '));
    const negative = r.keywords.filter((k) => k.startsWith('not ')).map((k) => k.slice(4));
    if (positive.length)
      add({
        text: `EXISTS (SELECT 1 FROM site_keywords k WHERE k.site_id = s.id AND k.keyword IN (${list(positive)}))`,
        params: positive,
      });
    if (negative.length)
      add({
        text: `NOT EXISTS (SELECT 1 FROM site_keywords k WHERE k.site_id = s.id AND k.keyword IN (${list(negative)}))`,
        params: negative,
      });
    if (r.industries.length)
      add({ text: `LOWER(s.industry) IN (${list(r.industries)})`, params: r.industries });
    if (r.companySizes.length)
      add({ text: `s.company_size IN (${list(r.companySizes)})`, params: r.companySizes });
    if (tld && !eitherLanguageOrTld) add(tld);
    if (r.fromDate !== null)
      add({ text: 's.first_seen_at > ?', params: [dbDate(this.db, new Date(r.fromDate * 1000))] });
    if (r.requiredSets.length) {
      const mask = setsMaskFor(r.requiredSets);
      add({ text: '(s.sets_mask & ?) = ?', params: [mask, mask] });
    }
    if (r.subdomains === 'exclude') where.push('s.is_subdomain = 0');
    if (r.excludeNoTraffic)
      where.push("s.traffic_rank IS NOT NULL AND NOT (s.rank_source = 'observed' AND s.hits = 0)");
    if (r.excludeMultilingual) where.push('s.language_count <= 1');
    if (r.excludeListIds.length)
      add({
        text: `NOT EXISTS (SELECT 1 FROM lead_list_sites x WHERE x.list_id IN (${list(r.excludeListIds)}) AND x.site_id = s.id)`,
        params: r.excludeListIds,
      });
    if (r.baseListId)
      add({
        text: 'EXISTS (SELECT 1 FROM lead_list_sites b WHERE b.list_id = ? AND b.site_id = s.id)',
        params: [r.baseListId],
      });

    const rank = `COALESCE(s.traffic_rank, ${NO_RANK})`;
    let candidates =
      `SELECT st.site_id AS site_id, ${rank} AS rnk` +
      (r.subdomains === 'merge'
        ? `, ROW_NUMBER() OVER (PARTITION BY s.domain ORDER BY s.is_subdomain, ${rank}, st.site_id) AS dn`
        : '') +
      ` FROM site_technologies st JOIN sites s ON s.id = st.site_id WHERE ${where.join(' AND ')}`;
    if (r.subdomains === 'merge') candidates = `SELECT site_id, rnk FROM (${candidates}) m WHERE m.dn = 1`;
    const head = 'INSERT INTO lead_list_sites (list_id, slug, site_id) ';
    if (r.subset === null) {
      return {
        text: `${head}SELECT ?, ?, c.site_id FROM (${candidates}) c`,
        params: [listId, tech.slug, ...params],
      };
    }
    // Sorted by traffic: the slice starts at its quintile (0 = the top) and holds `subset` sites,
    // moved back so that it stays full near the end; everything when subset >= the results.
    const ranked = `SELECT site_id, ROW_NUMBER() OVER (ORDER BY rnk, site_id) AS pos, COUNT(*) OVER () AS total FROM (${candidates}) c0`;
    // floor(total * slice / 5) as exact integer arithmetic on both databases.
    const quintile = '(p.total * ? - (p.total * ?) % 5) / 5';
    const start = `CASE WHEN ${quintile} < p.total - ? THEN ${quintile} ELSE p.total - ? END`;
    return {
      text:
        `${head}SELECT ?, ?, p.site_id FROM (${ranked}) p ` +
        `WHERE p.total <= ? OR (p.pos > ${start} AND p.pos <= ${start} + ?)`,
      params: [
        listId,
        tech.slug,
        ...params,
        r.subset,
        ...[0, 1].flatMap(() => [
          r.subsetSlice,
          r.subsetSlice,
          r.subset,
          r.subsetSlice,
          r.subsetSlice,
          r.subset,
        ]),
        r.subset,
      ],
    };
  }
}
