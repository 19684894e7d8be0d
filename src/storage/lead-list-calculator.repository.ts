import { Database, dbDate } from './database';
import { MysqlListStatementWriter } from './lead-list-calculator.mysql';
import { SqliteListStatementWriter } from './lead-list-calculator.sqlite';

/** Sorts sites without a rank after every ranked one. */
const NO_RANK = 2_147_483_647;

/** A statement with its `?` parameters. */
export interface SqlStatement {
  text: string;
  params: unknown[];
}

/**
 * Runs one INSERT … SELECT of a list's calculation in a transaction of its own: the dialects do it
 * differently (lead-list-calculator.sqlite.ts, lead-list-calculator.mysql.ts).
 */
export interface ListStatementWriter {
  write(listId: string, statement: SqlStatement): Promise<void>;
}

/** A technology of a list as the statements filter it: its slug and its range of version keys. */
export interface ListTechnologyFilter {
  slug: string;
  /**
   * null: any version (and sites without a known version). Otherwise the version-key range the
   * version filter stands for (version-key.ts), with neither bound for a version without components.
   */
  version: { from?: string; below?: string } | null;
}

/** What a list's calculation selects (a lead list's request, in the terms of the index's columns). */
export interface ListFilter {
  /** Every technology of the list (`and` requires all of them, `not` none after the first). */
  technologies: ListTechnologyFilter[];
  matchTechnologies: 'or' | 'and' | 'not';
  rootPath: boolean;
  /** The age window: technologies confirmed between these times. */
  from: Date;
  to: Date;
  countries: string[];
  languages: string[];
  matchCountryLanguage: boolean;
  tlds: string[];
  /** The language or the TLD is enough (datasets with matchLanguageTld false). */
  languageOrTld: boolean;
  /** Keywords a site must have one of, and keywords it must have none of. */
  keywords: string[];
  notKeywords: string[];
  industries: string[];
  companySizes: string[];
  /** Sites first seen after this time only. */
  firstSeenAfter: Date | null;
  /** sets_mask bits every site must have, or null. */
  requiredSetsMask: number | null;
  subdomains: 'include' | 'exclude' | 'merge';
  excludeNoTraffic: boolean;
  excludeMultilingual: boolean;
  /** Lists whose sites are left out. */
  excludeListIds: string[];
  /** The list whose sites are the only candidates, or null. */
  baseListId: string | null;
  subset: number | null;
  subsetSlice: number;
  /** A `vulnerabilities` filter (null: none). */
  affected?: AffectedVersions | null;
}

/**
 * What a `vulnerabilities` filter keeps: the technologies its records name, and the (technology,
 * version) pairs of the index they affect. Only sites running one of the pairs (live) are kept, and
 * a row of one of the named technologies must be one of the pairs itself.
 */
export interface AffectedVersions {
  slugs: readonly string[];
  pairs: readonly { slug: string; version: string }[];
}

/** Sites of a list sharing one combination of field-set bits. */
export interface MaskCount {
  mask: number;
  n: number;
}

/**
 * A list's calculation as set-based SQL over the index (the same statements on SQLite and MariaDB,
 * each run by the dialect's ListStatementWriter): one INSERT … SELECT into lead_list_sites for a
 * group of the list's technologies together (a pass over site_technologies joined with sites):
 * candidates come from the list index (slug, confirmed_at, version_key, site_id); version filters
 * are key ranges; the other technologies of `and`/`not`, keywords, languages and other lists are
 * EXISTS / NOT EXISTS conditions; subset and subsetSlice (a slice of each technology's results
 * sorted by traffic rank) are window functions partitioned by technology. subdomains=merge first
 * writes every matching (technology, site) to lead_list_candidates, then one statement keeps one
 * representative site per registrable domain for the whole list and merges the domain's technology
 * data into its rows. Nothing is loaded into memory.
 */
export class LeadListCalculatorRepository {
  private readonly writer: ListStatementWriter;

  constructor(private readonly db: Database) {
    this.writer =
      db.dialect === 'mysql' ? new MysqlListStatementWriter(db) : new SqliteListStatementWriter(db);
  }

  /** Removes the list's rows (a calculation starts over). */
  async clearSites(listId: string): Promise<void> {
    await this.db.query('DELETE FROM lead_list_sites WHERE list_id = ?', [listId]);
  }

  /** Removes the list's subdomains=merge candidates. */
  async clearCandidates(listId: string): Promise<void> {
    await this.db.query('DELETE FROM lead_list_candidates WHERE list_id = ?', [listId]);
  }

  /**
   * Adds the sites matching `filter` for the technologies `techs` (a group of the list's): as rows
   * of the list, or with subdomains=merge as candidates for insertMerged. One statement, in a
   * transaction of its own.
   */
  async insertMatches(
    listId: string,
    techs: readonly ListTechnologyFilter[],
    filter: ListFilter,
  ): Promise<void> {
    await this.writer.write(listId, this.insertFor(listId, techs, filter));
  }

  /** subdomains=merge: the list's rows from its candidates (see mergeInsert). */
  async insertMerged(listId: string, filter: ListFilter): Promise<void> {
    await this.writer.write(listId, this.mergeInsert(listId, filter));
  }

  /** The list's rows per technology. */
  async rowsPerTechnology(listId: string): Promise<{ slug: string; n: number }[]> {
    const rows = (await this.db.query(
      'SELECT slug, COUNT(*) AS n FROM lead_list_sites WHERE list_id = ? GROUP BY slug',
      [listId],
    )) as { slug: string; n: number | string }[];
    return rows.map((row) => ({ slug: row.slug, n: Number(row.n) }));
  }

  /** The list's distinct sites, as one count with mask 0. */
  async websites(listId: string): Promise<MaskCount[]> {
    return masksOf(
      await this.db.query(
        'SELECT 0 AS mask, COUNT(DISTINCT site_id) AS n FROM lead_list_sites WHERE list_id = ?',
        [listId],
      ),
    );
  }

  /** The list's distinct sites per sets_mask. */
  async websitesPerSetsMask(listId: string): Promise<MaskCount[]> {
    return masksOf(
      await this.db.query(
        `SELECT s.sets_mask AS mask, COUNT(*) AS n
           FROM (SELECT DISTINCT site_id FROM lead_list_sites WHERE list_id = ?) d
           JOIN sites s ON s.id = d.site_id
          GROUP BY s.sets_mask`,
        [listId],
      ),
    );
  }

  /**
   * subdomains=merge: per combination of the `bits` OR-ed over each domain's merged sites (at most
   * `perDomain`, its representative first), the domains.
   */
  async mergedWebsitesPerSetsMask(
    listId: string,
    bits: readonly number[],
    perDomain: number,
  ): Promise<MaskCount[]> {
    const rank = (alias: string) => `COALESCE(${alias}.traffic_rank, ${NO_RANK})`;
    const members =
      'SELECT d.site_id AS rep, m.sets_mask AS sets_mask,' +
      ` ROW_NUMBER() OVER (PARTITION BY d.site_id ORDER BY CASE WHEN m.id = d.site_id THEN 0 ELSE 1 END, m.is_subdomain, ${rank('m')}, m.id) AS rn` +
      ' FROM (SELECT DISTINCT site_id FROM lead_list_sites WHERE list_id = ?) d' +
      ' JOIN sites s ON s.id = d.site_id JOIN sites m ON m.domain = s.domain';
    const perDomainMasks =
      `SELECT x.rep, ${bits.map((bit, i) => `MAX(CASE WHEN (x.sets_mask & ${bit}) <> 0 THEN ${bit} ELSE 0 END) AS b${i}`).join(', ')}` +
      ` FROM (${members}) x WHERE x.rn <= ${perDomain} GROUP BY x.rep`;
    const mask = bits.map((_, i) => `g.b${i}`).join(' + ');
    return masksOf(
      await this.db.query(
        `SELECT ${mask} AS mask, COUNT(*) AS n FROM (${perDomainMasks}) g GROUP BY ${mask}`,
        [listId],
      ),
    );
  }

  /**
   * The condition that row `alias` is technology `tech` (its version range, rootPath), inside the
   * age window when `from`/`to` are given, on site `siteRef` when given.
   */
  private technologyOn(
    alias: string,
    siteRef: string,
    tech: ListTechnologyFilter,
    rootPath: boolean,
    from?: unknown,
    to?: unknown,
  ): SqlStatement {
    const params: unknown[] = [tech.slug];
    let text = `${alias}.slug = ?`;
    if (from !== undefined) {
      text += ` AND ${alias}.confirmed_at >= ? AND ${alias}.confirmed_at <= ?`;
      params.push(from, to);
    }
    if (siteRef) text += ` AND ${alias}.site_id = ${siteRef}`;
    if (tech.version !== null) {
      const range = tech.version;
      if (range.from !== undefined) {
        text += ` AND ${alias}.version_key >= ?`;
        params.push(range.from);
      }
      if (range.below !== undefined) {
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
  private anyTechnology(
    techs: readonly ListTechnologyFilter[],
    r: ListFilter,
    from: unknown,
    to: unknown,
  ): SqlStatement {
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

  /**
   * The `vulnerabilities` filter: the row's technology, when the vulnerabilities name it, runs an
   * affected version on the site now (site_technology_live_versions: any of the versions it runs,
   * not only the best known one); and, when the list has other technologies, the site runs one of
   * the affected pairs. Versions are matched exactly (the pairs come from the distinct versions of
   * the index, checked in each scheme's rules), as the reverse query reads them.
   */
  private affectedTerms(affected: AffectedVersions, techs: readonly ListTechnologyFilter[]): SqlStatement[] {
    const bySlug = new Map<string, string[]>();
    for (const p of affected.pairs) bySlug.set(p.slug, [...(bySlug.get(p.slug) ?? []), p.version]);
    if (bySlug.size === 0) return [{ text: '1 = 0', params: [] }];
    const named = new Set([...affected.slugs, ...bySlug.keys()]);
    // The versions a site runs now: a row there exists only while the technology is live.
    const running = (site: string, slug: string | null): SqlStatement => {
      const params: unknown[] = [];
      const terms = [...bySlug].map(([pairSlug, versions]) => {
        params.push(pairSlug, ...versions);
        return `(v.slug = ? AND v.version IN (${versions.map(() => '?').join(', ')}))`;
      });
      return {
        text:
          `EXISTS (SELECT 1 FROM site_technology_live_versions v WHERE v.site_id = ${site}` +
          `${slug ? ` AND v.slug = ${slug}` : ''} AND (${terms.join(' OR ')}))`,
        params,
      };
    };
    const slugs = [...named];
    const row = running('st.site_id', 'st.slug');
    const terms: SqlStatement[] = [
      {
        text: `(st.slug NOT IN (${slugs.map(() => '?').join(', ')}) OR (st.live = 1 AND ${row.text}))`,
        params: [...slugs, ...row.params],
      },
    ];
    // Rows of the affected technologies hold the site condition themselves.
    if (techs.some((t) => !named.has(t.slug))) terms.push(running('st.site_id', null));
    return terms;
  }

  private insertFor(listId: string, techs: readonly ListTechnologyFilter[], r: ListFilter): SqlStatement {
    const from = dbDate(this.db, r.from);
    const to = dbDate(this.db, r.to);
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: SqlStatement) => {
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
    if (r.affected) for (const term of this.affectedTerms(r.affected, r.technologies)) add(term);
    // The terms so far read site_technologies only; without other filters (nor subset) no join.
    const technologyTerms = where.length;
    const list = (values: readonly unknown[]) => values.map(() => '?').join(', ');
    const country = r.countries.length
      ? { text: `s.country IN (${list(r.countries)})`, params: r.countries }
      : null;
    let language: SqlStatement | null = null;
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
    if (r.keywords.length)
      add({
        text: `EXISTS (SELECT 1 FROM site_keywords k WHERE k.site_id = s.id AND k.keyword IN (${list(r.keywords)}))`,
        params: r.keywords,
      });
    if (r.notKeywords.length)
      add({
        text: `NOT EXISTS (SELECT 1 FROM site_keywords k WHERE k.site_id = s.id AND k.keyword IN (${list(r.notKeywords)}))`,
        params: r.notKeywords,
      });
    if (r.industries.length)
      add({ text: `LOWER(s.industry) IN (${list(r.industries)})`, params: r.industries });
    if (r.companySizes.length)
      add({ text: `s.company_size IN (${list(r.companySizes)})`, params: r.companySizes });
    if (tld && !eitherLanguageOrTld) add(tld);
    if (r.firstSeenAfter !== null)
      add({ text: 's.first_seen_at > ?', params: [dbDate(this.db, r.firstSeenAfter)] });
    if (r.requiredSetsMask !== null) {
      const mask = r.requiredSetsMask;
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
  private subsetSlice(rows: string, alias: string, r: ListFilter): SqlStatement {
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
  private mergeInsert(listId: string, r: ListFilter): SqlStatement {
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

function masksOf(rows: unknown): MaskCount[] {
  return (rows as { mask: number | string; n: number | string }[]).map((row) => ({
    mask: Number(row.mask),
    n: Number(row.n),
  }));
}
