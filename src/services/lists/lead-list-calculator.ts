import type { EntityManager } from 'typeorm';
import { Database, dbDate } from '../../storage/database';
import { ENRICHMENT_SETS } from '../../enrichment';
import { setsMaskFor } from '../analysis/site-sets';
import type { ListRequest, ListTechnology } from './lead-list-request';
import { versionKeyRange } from '../site-index/version-key';

/** What a calculation found: websites per technology, per field set, and in all. */
export interface ListCounts {
  rows: Record<string, number>;
  setRows: Record<string, number>;
  websites: number;
}

/** Sorts sites without a rank after every ranked one. */
const NO_RANK = 2_147_483_647;

/** Technologies per INSERT … SELECT (a category list of 100 takes four statements). */
const TECHS_PER_STATEMENT = 25;

/** subdomains=merge: at most this many sites of a domain are merged into its row (its own site first). */
export const MERGE_SITES_PER_DOMAIN = 100;

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
 * Computes a list as set-based SQL over the index (the same statements on SQLite and MariaDB): one
 * INSERT … SELECT into lead_list_sites for all of the list's technologies together (a pass over
 * site_technologies joined with sites): candidates come from the list index (slug, confirmed_at,
 * version_key, site_id); version filters are key ranges (version-key.ts); the other technologies of
 * `and`/`not`, keywords, languages and other lists are EXISTS / NOT EXISTS conditions; subset and
 * subsetSlice (a slice of each technology's results sorted by traffic rank) are window functions
 * partitioned by technology. subdomains=merge first writes every matching (technology, site) to
 * lead_list_candidates, then one statement keeps one representative site per registrable domain
 * for the whole list and merges the domain's technology data into its rows. Nothing is loaded
 * into memory.
 */
export class LeadListCalculator {
  constructor(private readonly db: Database) {}

  async calculate(listId: string, request: ListRequest, now: Date): Promise<ListCounts> {
    const from = dbDate(this.db, monthsAgo(now, request.maxAge));
    const to = dbDate(this.db, monthsAgo(now, request.minAge));
    await this.db.query('DELETE FROM lead_list_sites WHERE list_id = ?', [listId]);
    const techs =
      request.matchTechnologies === 'not' ? request.technologies.slice(0, 1) : request.technologies;
    const merge = request.subdomains === 'merge';
    if (merge) await this.db.query('DELETE FROM lead_list_candidates WHERE list_id = ?', [listId]);
    // Technologies in groups of TECHS_PER_STATEMENT: each statement is its own short transaction
    // (on SQLite one write), so crawls writing to the index wait for one group at most.
    for (let i = 0; i < techs.length; i += TECHS_PER_STATEMENT) {
      await this.write(
        listId,
        this.insertFor(listId, techs.slice(i, i + TECHS_PER_STATEMENT), request, from, to),
      );
    }
    if (merge) {
      await this.write(listId, this.mergeInsert(listId, request));
      await this.db.query('DELETE FROM lead_list_candidates WHERE list_id = ?', [listId]);
    }
    return this.counts(listId, request);
  }

  /**
   * One INSERT … SELECT in its own transaction. On MariaDB at READ COMMITTED: the SELECT is a
   * consistent read that locks no row of site_technologies or sites (at REPEATABLE READ InnoDB
   * would share-lock every row it reads, holding up crawls writing to the index meanwhile).
   *
   * Also on MariaDB, the list's row is share-locked once and the foreign key of lead_list_sites is
   * not checked row by row: InnoDB's check looks the list up and share-locks it again for every row
   * inserted, 2.3 of the 9.6 s that 1.5 million rows of a category list took (1M-site bench). The
   * lock held to the commit keeps what the check guaranteed: the list cannot be removed meanwhile
   * (its removal waits, then cascades to these rows), and a list already gone gets no rows.
   */
  private async write(listId: string, sql: Sql): Promise<void> {
    if (this.db.dialect === 'mysql')
      await this.db.dataSource.transaction('READ COMMITTED', async (m: EntityManager) => {
        const held = (await m.query('SELECT id FROM lead_lists WHERE id = ? LOCK IN SHARE MODE', [
          listId,
        ])) as unknown[];
        if (held.length === 0) throw new Error(`list ${listId} was removed during its calculation`);
        await m.query('SET SESSION foreign_key_checks = 0');
        try {
          await m.query(sql.text, sql.params);
        } finally {
          await m.query('SET SESSION foreign_key_checks = 1');
        }
      });
    else await this.db.transaction((m: EntityManager) => m.query(sql.text, sql.params));
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
    // With subdomains=merge a domain holds a set when one of its merged sites (at most
    // MERGE_SITES_PER_DOMAIN, its representative first) does: the mask is OR-ed over them.
    const masks = (
      request.sets.length === 0
        ? await this.db.query(
            'SELECT 0 AS mask, COUNT(DISTINCT site_id) AS n FROM lead_list_sites WHERE list_id = ?',
            [listId],
          )
        : request.subdomains === 'merge'
          ? await this.mergedMasks(listId, request)
          : await this.db.query(
              `SELECT s.sets_mask AS mask, COUNT(*) AS n
                 FROM (SELECT DISTINCT site_id FROM lead_list_sites WHERE list_id = ?) d
                 JOIN sites s ON s.id = d.site_id
                GROUP BY s.sets_mask`,
              [listId],
            )
    ) as { mask: number | string; n: number | string }[];
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

  /** subdomains=merge: per combination of the requested sets' bits OR-ed over each domain's merged sites, the domains. */
  private async mergedMasks(listId: string, request: ListRequest): Promise<{ mask: number; n: number }[]> {
    const rank = (alias: string) => `COALESCE(${alias}.traffic_rank, ${NO_RANK})`;
    const bits = request.sets.map((set) => 1 << ENRICHMENT_SETS.indexOf(set));
    const members =
      'SELECT d.site_id AS rep, m.sets_mask AS sets_mask,' +
      ` ROW_NUMBER() OVER (PARTITION BY d.site_id ORDER BY CASE WHEN m.id = d.site_id THEN 0 ELSE 1 END, m.is_subdomain, ${rank('m')}, m.id) AS rn` +
      ' FROM (SELECT DISTINCT site_id FROM lead_list_sites WHERE list_id = ?) d' +
      ' JOIN sites s ON s.id = d.site_id JOIN sites m ON m.domain = s.domain';
    const perDomain =
      `SELECT x.rep, ${bits.map((bit, i) => `MAX(CASE WHEN (x.sets_mask & ${bit}) <> 0 THEN ${bit} ELSE 0 END) AS b${i}`).join(', ')}` +
      ` FROM (${members}) x WHERE x.rn <= ${MERGE_SITES_PER_DOMAIN} GROUP BY x.rep`;
    const mask = bits.map((_, i) => `g.b${i}`).join(' + ');
    const rows = (await this.db.query(
      `SELECT ${mask} AS mask, COUNT(*) AS n FROM (${perDomain}) g GROUP BY ${mask}`,
      [listId],
    )) as { mask: number | string; n: number | string }[];
    return rows.map((row) => ({ mask: Number(row.mask), n: Number(row.n) }));
  }

  /**
   * The condition that row `alias` is technology `tech` (its version range, rootPath), inside the
   * age window when `from`/`to` are given, on site `siteRef` when given.
   */
  private technologyOn(
    alias: string,
    siteRef: string,
    tech: ListTechnology,
    rootPath: boolean,
    from?: unknown,
    to?: unknown,
  ): Sql {
    const params: unknown[] = [tech.slug];
    let text = `${alias}.slug = ?`;
    if (from !== undefined) {
      text += ` AND ${alias}.confirmed_at >= ? AND ${alias}.confirmed_at <= ?`;
      params.push(from, to);
    }
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

  /**
   * The condition that row `st` is one of `techs` (each with its version range) inside the window:
   * one IN list for the technologies without a version filter, one term per versioned one, each
   * term a range of the list index (slug, confirmed_at, version_key, site_id).
   */
  private anyTechnology(techs: readonly ListTechnology[], r: ListRequest, from: unknown, to: unknown): Sql {
    const parts: string[] = [];
    const params: unknown[] = [];
    const window = 'st.confirmed_at >= ? AND st.confirmed_at <= ?';
    const plain = techs.filter((t) => t.version === null).map((t) => t.slug);
    if (plain.length) {
      parts.push(`(st.slug IN (${plain.map(() => '?').join(', ')}) AND ${window})`);
      params.push(...plain, from, to);
    }
    for (const tech of techs.filter((t) => t.version !== null)) {
      const on = this.technologyOn('st', '', tech, false, from, to);
      parts.push(`(${on.text})`);
      params.push(...on.params);
    }
    let text = parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
    if (r.rootPath) text += ' AND st.root_path = 1';
    return { text, params };
  }

  private insertFor(
    listId: string,
    techs: readonly ListTechnology[],
    r: ListRequest,
    from: unknown,
    to: unknown,
  ): Sql {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: Sql) => {
      where.push(sql.text);
      params.push(...sql.params);
    };
    add(this.anyTechnology(techs, r, from, to));
    if (r.matchTechnologies === 'and') {
      // Every technology of the list on the same site (a row's own technology holds trivially).
      for (const other of r.technologies) {
        const on = this.technologyOn('o', 'st.site_id', other, r.rootPath, from, to);
        add({ text: `EXISTS (SELECT 1 FROM site_technologies o WHERE ${on.text})`, params: on.params });
      }
    }
    if (r.matchTechnologies === 'not') {
      for (const other of r.technologies.slice(1)) {
        const on = this.technologyOn('o', 'st.site_id', other, false, from, to);
        add({ text: `NOT EXISTS (SELECT 1 FROM site_technologies o WHERE ${on.text})`, params: on.params });
      }
    }
    // The terms so far read site_technologies only; without other filters (nor subset) no join.
    const technologyTerms = where.length;
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
        // IN / NOT IN over an uncorrelated subquery: each database reads the other lists' sites
        // once (lead_list_sites is keyed by list, technology and site, with no per-site index).
        text: `s.id NOT IN (SELECT x.site_id FROM lead_list_sites x WHERE x.list_id IN (${list(r.excludeListIds)}))`,
        params: r.excludeListIds,
      });
    if (r.baseListId)
      add({
        text: 's.id IN (SELECT b.site_id FROM lead_list_sites b WHERE b.list_id = ?)',
        params: [r.baseListId],
      });

    const rank = `COALESCE(s.traffic_rank, ${NO_RANK})`;
    const plain = where.length === technologyTerms && r.subset === null && r.subdomains !== 'merge';
    const candidates = plain
      ? `SELECT st.slug AS slug, st.site_id AS site_id FROM site_technologies st WHERE ${where.join(' AND ')}`
      : `SELECT st.slug AS slug, st.site_id AS site_id, ${rank} AS rnk` +
        ` FROM site_technologies st JOIN sites s ON s.id = st.site_id WHERE ${where.join(' AND ')}`;
    if (r.subdomains === 'merge') {
      // Every matching (technology, site); the merge statement keeps one site per domain.
      return {
        text: `INSERT INTO lead_list_candidates (list_id, slug, site_id) SELECT ?, c.slug, c.site_id FROM (${candidates}) c`,
        params: [listId, ...params],
      };
    }
    const head = 'INSERT INTO lead_list_sites (list_id, slug, site_id) ';
    if (r.subset === null) {
      return {
        text: `${head}SELECT ?, c.slug, c.site_id FROM (${candidates}) c`,
        params: [listId, ...params],
      };
    }
    const slice = this.subsetSlice(candidates, 'c0', r);
    return {
      text: `${head}SELECT ?, p.slug, p.site_id FROM ${slice.text}`,
      params: [listId, ...params, ...slice.params],
    };
  }

  /**
   * The subset/subsetSlice cut of `rows` (columns slug, site_id, rnk), per technology: sorted by
   * traffic, the slice starts at its quintile (0 = the top) and holds `subset` sites, moved back so
   * that it stays full near the end; everything when subset >= the technology's results. Returns
   * `(…) p WHERE …` selecting p.slug, p.site_id (and the other columns of `rows`).
   */
  private subsetSlice(rows: string, alias: string, r: ListRequest): Sql {
    const ranked =
      `SELECT ${alias}.*, ROW_NUMBER() OVER (PARTITION BY ${alias}.slug ORDER BY ${alias}.rnk, ${alias}.site_id) AS pos,` +
      ` COUNT(*) OVER (PARTITION BY ${alias}.slug) AS total FROM (${rows}) ${alias}`;
    // floor(total * slice / 5) as exact integer arithmetic on both databases.
    const quintile = '(p.total * ? - (p.total * ?) % 5) / 5';
    const start = `CASE WHEN ${quintile} < p.total - ? THEN ${quintile} ELSE p.total - ? END`;
    return {
      text: `(${ranked}) p WHERE p.total <= ? OR (p.pos > ${start} AND p.pos <= ${start} + ?)`,
      params: [
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

  /**
   * subdomains=merge: from the list's candidates, one row per (domain, technology) under the
   * domain's representative site — the same for every technology of the list: the domain's own site
   * when it matched, else its best-ranked matching subdomain — with the technology's data merged
   * over the domain's matching sites: the highest version (by version key), the earliest first
   * detection and the latest confirmation. Then subset/subsetSlice, by the representative's rank.
   */
  private mergeInsert(listId: string, r: ListRequest): Sql {
    const rank = `COALESCE(s.traffic_rank, ${NO_RANK})`;
    const reps =
      `SELECT r0.domain, r0.site_id AS rep, r0.rnk FROM (SELECT s.domain AS domain, d.site_id AS site_id, ${rank} AS rnk,` +
      ` ROW_NUMBER() OVER (PARTITION BY s.domain ORDER BY s.is_subdomain, ${rank}, d.site_id) AS dn` +
      ' FROM (SELECT DISTINCT site_id FROM lead_list_candidates WHERE list_id = ?) d JOIN sites s ON s.id = d.site_id) r0' +
      ' WHERE r0.dn = 1';
    const perTech =
      'SELECT s.domain AS domain, c.slug AS slug, st.version AS version,' +
      ' ROW_NUMBER() OVER (PARTITION BY s.domain, c.slug ORDER BY st.version_key DESC, c.site_id) AS vn,' +
      ' MIN(st.first_seen_at) OVER (PARTITION BY s.domain, c.slug) AS first_detected,' +
      ' MAX(st.confirmed_at) OVER (PARTITION BY s.domain, c.slug) AS last_detected' +
      ' FROM lead_list_candidates c JOIN sites s ON s.id = c.site_id' +
      ' JOIN site_technologies st ON st.site_id = c.site_id AND st.slug = c.slug WHERE c.list_id = ?';
    const merged =
      'SELECT t.slug AS slug, rp.rep AS site_id, rp.rnk AS rnk, t.version AS version,' +
      ' t.first_detected AS first_detected, t.last_detected AS last_detected' +
      ` FROM (${perTech}) t JOIN (${reps}) rp ON rp.domain = t.domain WHERE t.vn = 1`;
    const head =
      'INSERT INTO lead_list_sites (list_id, slug, site_id, version, first_detected, last_detected) ';
    const columns = 'p.slug, p.site_id, p.version, p.first_detected, p.last_detected';
    if (r.subset === null)
      return { text: `${head}SELECT ?, ${columns} FROM (${merged}) p`, params: [listId, listId, listId] };
    const slice = this.subsetSlice(merged, 'm0', r);
    return {
      text: `${head}SELECT ?, ${columns} FROM ${slice.text}`,
      params: [listId, listId, listId, ...slice.params],
    };
  }
}
