import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Database } from '../db/database';
import type { EnrichmentSet, SiteEnrichment } from '../enrichment';
import { SOCIAL_NETWORKS, trafficLevelOf } from '../enrichment';
import { flattenSets } from './enrichment-fields';
import { writeZip } from './zip-writer';
import type { ListRequest } from './lead-list-request';

/** The two files of a list: a sample (LISTS_SAMPLE_ROWS rows per technology) and the whole list. */
export const LIST_FILES = ['sample.zip', 'full.zip'] as const;
export type ListFile = (typeof LIST_FILES)[number];

/** Columns every file has, in this order, before the columns of the chosen field sets. */
export const BASE_COLUMNS = [
  'url',
  'hostname',
  'domain',
  'tld',
  'subdomain',
  'technology',
  'version',
  'firstDetected',
  'lastDetected',
  'trafficRank',
  'country',
  'language',
  'languages',
  'industry',
  'companySize',
] as const;

/** The columns each field set adds (the fields of the enriched lookup record, flattened). */
export const SET_COLUMNS: Record<EnrichmentSet, readonly string[]> = {
  meta: ['title', 'description', 'copyright', 'copyrightYear', 'responsive', 'schemaOrgTypes'],
  company: [
    'companyName',
    'inferredCompanyName',
    'industry',
    'about',
    'companySize',
    'companyType',
    'companyFounded',
    'locations',
  ],
  phone: ['phone'],
  email: ['email', 'verifiedEmail', 'safeEmail'],
  contact: ['employees'],
  social: SOCIAL_NETWORKS,
  locale: ['ipCountry', 'ipRegion', 'ipCountries'],
  security: ['certInfo', 'https', 'dns'],
  trackers: ['trackers'],
  keywords: ['keywords'],
  signals: ['technologySpend', 'trafficLevel'],
  events: ['createdAt', 'updatedAt', 'crawlAttemptedAt'],
};

/** The columns of a list's files: the base columns, then each chosen set's (a name given once). */
export function columnsOf(sets: readonly EnrichmentSet[]): string[] {
  const columns: string[] = [...BASE_COLUMNS];
  for (const set of sets)
    for (const column of SET_COLUMNS[set]) if (!columns.includes(column)) columns.push(column);
  return columns;
}

const PAGE = 1000;

interface RowData {
  site_id: number;
  hostname: string;
  domain: string;
  tld: string;
  is_subdomain: number | boolean;
  version: string;
  st_first: Date | string;
  st_confirmed: Date | string;
  traffic_rank: number | null;
  country: string | null;
  language: string | null;
  industry: string | null;
  company_size: string | null;
  first_seen_at: Date | string;
  last_analyzed_at: Date | string;
  crawl_attempted_at: Date | string | null;
}

function isoOf(value: Date | string | null): string | null {
  if (value === null) return null;
  const date =
    value instanceof Date ? value : new Date(value.replace(' ', 'T') + (value.endsWith('Z') ? '' : 'Z'));
  return date.toISOString();
}

function unixOf(value: Date | string | null): number | undefined {
  const iso = isoOf(value);
  return iso ? Math.floor(Date.parse(iso) / 1000) : undefined;
}

function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? value.join('; ')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes and serves a list's ZIP files (yazl: streaming, ZIP64 when an entry or the archive needs
 * it), one CSV or JSON file per technology, read page by page from the database so memory stays
 * flat whatever the list's size. Download links are signed: HMAC-SHA256 over list id, file name and
 * expiry, with LISTS_URL_SECRET (or a secret generated once into LISTS_DIR/.url-secret, shared by
 * every process on the host).
 */
export class LeadListFiles {
  readonly dir: string;
  private secretValue: Buffer | null = null;

  constructor(
    private readonly db: Database,
    private readonly options: {
      dir: string;
      secret?: string;
      ttlSeconds: number;
      sampleRows: number;
      publicBaseUrl?: string;
    },
  ) {
    this.dir = resolve(options.dir);
  }

  pathOf(listId: string, file: ListFile): string {
    return join(this.dir, listId, file);
  }

  /** Writes sample.zip and full.zip (each to a temporary name, renamed when complete). */
  async write(listId: string, request: ListRequest): Promise<void> {
    mkdirSync(join(this.dir, listId), { recursive: true });
    for (const file of LIST_FILES) {
      const slugs =
        request.matchTechnologies === 'not'
          ? request.technologies.slice(0, 1).map((t) => t.slug)
          : request.technologies.map((t) => t.slug);
      const limit = file === 'sample.zip' ? this.options.sampleRows : Number.POSITIVE_INFINITY;
      await writeZip(
        this.pathOf(listId, file),
        slugs.map((slug) => ({
          name: `${slug}.${request.format}`,
          stream: () => Readable.from(this.entry(listId, slug, request, limit)),
        })),
      );
    }
  }

  remove(listId: string): void {
    rmSync(join(this.dir, listId), { recursive: true, force: true });
  }

  private async *entry(
    listId: string,
    slug: string,
    request: ListRequest,
    limit: number,
  ): AsyncGenerator<Buffer> {
    const columns = columnsOf(request.sets);
    const json = request.format === 'json';
    yield Buffer.from(json ? '[' : columns.map(csvCell).join(',') + '\r\n');
    let written = 0;
    let after = 0;
    while (written < limit) {
      const take = Math.min(PAGE, limit - written);
      const rows = (await this.db.query(
        `SELECT ls.site_id AS site_id, s.hostname AS hostname, s.domain AS domain, s.tld AS tld,
                s.is_subdomain AS is_subdomain, st.version AS version, st.first_seen_at AS st_first,
                st.confirmed_at AS st_confirmed, s.traffic_rank AS traffic_rank, s.country AS country,
                s.language AS language, s.industry AS industry, s.company_size AS company_size,
                s.first_seen_at AS first_seen_at, s.last_analyzed_at AS last_analyzed_at,
                s.crawl_attempted_at AS crawl_attempted_at
           FROM lead_list_sites ls
           JOIN sites s ON s.id = ls.site_id
           JOIN site_technologies st ON st.site_id = ls.site_id AND st.slug = ls.slug
          WHERE ls.list_id = ? AND ls.slug = ? AND ls.site_id > ?
          ORDER BY ls.site_id
          LIMIT ${take}`,
        [listId, slug, after],
      )) as RowData[];
      if (rows.length === 0) break;
      const ids = rows.map((r) => Number(r.site_id));
      const enrichments = new Map<number, Omit<SiteEnrichment, 'events'>>();
      const languages = new Map<string, string[]>();
      if (request.sets.length) {
        const stored = (await this.db.query(
          `SELECT site_id, data FROM site_enrichments WHERE site_id IN (${ids.map(() => '?').join(',')})`,
          ids,
        )) as { site_id: number; data: string }[];
        for (const row of stored) enrichments.set(Number(row.site_id), JSON.parse(row.data));
      }
      // Languages: the site's own, or with subdomains=merge every site of its domain. Both read
      // site_languages through its site_id index (never a scan of the whole table per page).
      const merge = request.subdomains === 'merge';
      const langRows = (
        merge
          ? await this.db.query(
              `SELECT s.domain AS k, l.language AS language FROM sites s CROSS JOIN site_languages l
                WHERE l.site_id = s.id AND s.domain IN (${rows.map(() => '?').join(',')}) ORDER BY l.language`,
              rows.map((r) => r.domain),
            )
          : await this.db.query(
              `SELECT site_id AS k, language FROM site_languages
                WHERE site_id IN (${ids.map(() => '?').join(',')}) ORDER BY language`,
              ids,
            )
      ) as { k: string | number; language: string }[];
      const keyOf = (row: RowData): string => (merge ? row.domain : String(Number(row.site_id)));
      for (const row of langRows) {
        const k = merge ? String(row.k) : String(Number(row.k));
        const list = languages.get(k) ?? [];
        if (!list.includes(row.language)) list.push(row.language);
        languages.set(k, list);
      }
      const out: string[] = [];
      for (const row of rows) {
        const record: Record<string, unknown> = this.recordOf(
          row,
          slug,
          request,
          enrichments.get(Number(row.site_id)) ?? null,
          languages.get(keyOf(row)) ?? [],
        );
        out.push(
          json
            ? (written + out.length === 0 ? '\n' : ',\n') + JSON.stringify(record)
            : columns.map((c) => csvCell(record[c])).join(',') + '\r\n',
        );
      }
      written += rows.length;
      after = ids[ids.length - 1];
      yield Buffer.from(out.join(''));
      if (rows.length < take) break;
    }
    if (json) yield Buffer.from(written ? '\n]\n' : ']\n');
  }

  private recordOf(
    row: RowData,
    slug: string,
    request: ListRequest,
    enrichment: Omit<SiteEnrichment, 'events'> | null,
    languages: string[],
  ): Record<string, unknown> {
    const record: Record<string, unknown> = {
      url: `https://${row.hostname}/`,
      hostname: row.hostname,
      domain: row.domain,
      tld: row.tld,
      subdomain: Boolean(Number(row.is_subdomain)),
      technology: slug,
      version: row.version || null,
      firstDetected: isoOf(row.st_first),
      lastDetected: isoOf(row.st_confirmed),
      trafficRank: row.traffic_rank === null ? null : Number(row.traffic_rank),
      country: row.country,
      language: row.language,
      languages,
      industry: row.industry,
      companySize: row.company_size,
    };
    if (request.sets.length) {
      // The events set comes from the site row, so a site without a stored record still has it.
      const full = {
        ...(enrichment ?? {}),
        events: {
          createdAt: unixOf(row.first_seen_at),
          updatedAt: unixOf(row.last_analyzed_at),
          crawlAttemptedAt: unixOf(row.crawl_attempted_at),
        },
      } as SiteEnrichment;
      if (enrichment) {
        const level = trafficLevelOf(row.traffic_rank === null ? undefined : Number(row.traffic_rank));
        const { trafficLevel: _stale, ...signals } = full.signals ?? {};
        full.signals = level ? { ...signals, trafficLevel: level } : signals;
      }
      const fields = flattenSets(full, request.sets) as Record<string, unknown>;
      for (const set of request.sets)
        for (const column of SET_COLUMNS[set])
          if (!(column in record) || record[column] === null) record[column] = fields[column] ?? null;
    }
    return record;
  }

  // ---- signed links ----

  private secret(): Buffer {
    if (this.secretValue) return this.secretValue;
    if (this.options.secret) return (this.secretValue = Buffer.from(this.options.secret, 'utf8'));
    const file = join(this.dir, '.url-secret');
    if (!existsSync(file)) {
      mkdirSync(this.dir, { recursive: true });
      try {
        writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
      } catch {
        // Another process wrote it first: read theirs.
      }
    }
    return (this.secretValue = Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8'));
  }

  signature(listId: string, file: string, expires: number): string {
    return createHmac('sha256', this.secret()).update(`${listId}\n${file}\n${expires}`).digest('hex');
  }

  /** A link valid for LISTS_URL_TTL_SECONDS; absolute when PUBLIC_BASE_URL is set, else a path. */
  url(listId: string, file: ListFile, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.options.ttlSeconds;
    const path = `/v2/lists/${listId}/files/${file}?expires=${expires}&signature=${this.signature(listId, file, expires)}`;
    return this.options.publicBaseUrl ? this.options.publicBaseUrl.replace(/\/+$/, '') + path : path;
  }

  /** Whether a link's signature and expiry hold. */
  verify(listId: string, file: string, expires: string, signature: string, now = Date.now()): boolean {
    if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
    const expected = Buffer.from(this.signature(listId, file, Number(expires)), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (!timingSafeEqual(expected, given)) return false;
    return Number(expires) * 1000 > now;
  }
}
