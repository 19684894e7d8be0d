import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Database } from '../../storage/database';
import { LeadListRepository, type ListSiteRow } from '../../storage/lead-list.repository';
import type { EnrichmentSet, SiteEnrichment } from '../../enrichment';
import { trafficLevelOf } from '../../enrichment';
import { FIELDS_OF_SET, flattenSets } from '../analysis/enrichment-fields';
import { writeZip } from './zip-writer';
import { MERGE_SITES_PER_DOMAIN } from './lead-list-calculator';
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

/** The columns each field set adds: its fields in the enriched record (the one table of them). */
export const SET_COLUMNS: Readonly<Record<EnrichmentSet, readonly string[]>> = FIELDS_OF_SET;

/** The columns of a list's files: the base columns, then each chosen set's (a name given once). */
export function columnsOf(sets: readonly EnrichmentSet[]): string[] {
  const columns: string[] = [...BASE_COLUMNS];
  for (const set of sets)
    for (const column of SET_COLUMNS[set]) if (!columns.includes(column)) columns.push(column);
  return columns;
}

const PAGE = 1000;

type RowData = ListSiteRow;

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
 * Columns of the row that are its site's (or, merged, its representative's) and never merged: the
 * base columns up to the site's own data (country onwards may be filled from another site), and the
 * languages, which are merged on their own.
 */
const OWN_COLUMNS = new Set<string>([...BASE_COLUMNS.slice(0, BASE_COLUMNS.indexOf('country')), 'languages']);

/**
 * subdomains=merge: a row's record with the data of its domain's other sites merged in: a list
 * column (emails, phones, social profiles, keywords…) takes the union of the sites' values (the
 * row's own first), any other empty column the first value another site has (the domain's own
 * site, then by traffic rank). The row's identity and technology columns stay its own.
 */
export function mergeRecords(
  own: Record<string, unknown>,
  others: Record<string, unknown>[],
  sets: readonly EnrichmentSet[],
): Record<string, unknown> {
  const out = { ...own };
  const columns = columnsOf(sets).filter((c) => !OWN_COLUMNS.has(c));
  for (const column of columns) {
    const values = [own[column], ...others.map((o) => o[column])].filter(
      (v) => v !== undefined && v !== null && v !== '',
    );
    if (values.length === 0) continue;
    if (values.some((v) => Array.isArray(v))) {
      const seen = new Set<string>();
      const union: unknown[] = [];
      for (const value of values)
        for (const item of Array.isArray(value) ? value : [value]) {
          const key = JSON.stringify(item);
          if (seen.has(key)) continue;
          seen.add(key);
          union.push(item);
        }
      out[column] = union;
    } else out[column] = values[0];
  }
  return out;
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
  private readonly lists: LeadListRepository;

  constructor(
    db: Database,
    private readonly options: {
      dir: string;
      secret?: string;
      ttlSeconds: number;
      sampleRows: number;
      publicBaseUrl?: string;
    },
  ) {
    this.dir = resolve(options.dir);
    this.lists = new LeadListRepository(db);
  }

  pathOf(listId: string, file: ListFile): string {
    return join(this.dir, listId, file);
  }

  /** Writes sample.zip and full.zip (datasets; lists write the full file in a follow-up job). */
  async write(listId: string, request: ListRequest): Promise<void> {
    for (const file of LIST_FILES) await this.writeFile(listId, request, file);
  }

  /** Whether a file is written (complete: files are written under a temporary name, then renamed). */
  exists(listId: string, file: ListFile): boolean {
    return existsSync(this.pathOf(listId, file));
  }

  /** Writes one file (to a temporary name, renamed when complete). */
  async writeFile(listId: string, request: ListRequest, file: ListFile): Promise<void> {
    mkdirSync(join(this.dir, listId), { recursive: true });
    const slugs =
      request.matchTechnologies === 'not'
        ? request.technologies.slice(0, 1).map((t) => t.slug)
        : request.technologies.map((t) => t.slug);
    const limit = file === 'sample.zip' ? this.options.sampleRows : Number.POSITIVE_INFINITY;
    await writeZip(
      this.pathOf(listId, file),
      slugs.map((slug) => ({
        name: `${slug}.${request.format}`,
        // One page read ahead, not Readable.from's 16: each page is a buffer of 100-300 KB.
        stream: () => Readable.from(this.entry(listId, slug, request, limit), { highWaterMark: 1 }),
      })),
    );
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
    const merge = request.subdomains === 'merge';
    while (written < limit) {
      const take = Math.min(PAGE, limit - written);
      // subdomains=merge: the row's technology data was merged over the domain by the calculation.
      const rows = await this.lists.filePage(listId, slug, after, take, merge);
      if (rows.length === 0) break;
      const ids = rows.map((r) => Number(r.site_id));
      // The sites whose data each row carries: the site itself, or with subdomains=merge the sites
      // of its domain (at most MERGE_SITES_PER_DOMAIN: the row's own site first, then the domain's
      // own site, then by traffic rank).
      const members = merge ? await this.domainMembers(rows) : new Map(ids.map((id) => [id, [id]]));
      const memberIds = [...new Set([...members.values()].flat())];
      const enrichments = new Map<number, Omit<SiteEnrichment, 'events'>>();
      if (request.sets.length) {
        const stored = await this.lists.enrichments(memberIds);
        for (const row of stored) enrichments.set(Number(row.site_id), JSON.parse(row.data));
      }
      const siteLanguages = new Map<number, string[]>();
      for (const row of await this.lists.languages(memberIds)) {
        const id = Number(row.site_id);
        siteLanguages.set(id, [...(siteLanguages.get(id) ?? []), row.language]);
      }
      const others = merge ? await this.memberRows(memberIds.filter((id) => !ids.includes(id))) : new Map();
      const out: string[] = [];
      for (const row of rows) {
        const siteIds = members.get(Number(row.site_id)) ?? [Number(row.site_id)];
        const languages = [...new Set(siteIds.flatMap((id) => siteLanguages.get(id) ?? []))].sort();
        let record = this.recordOf(
          row,
          slug,
          request,
          enrichments.get(Number(row.site_id)) ?? null,
          languages,
        );
        if (merge && siteIds.length > 1) {
          const rest = siteIds
            .slice(1)
            .map((id) => others.get(id))
            .filter((r): r is RowData => r !== undefined)
            .map((r) =>
              this.recordOf(r, slug, request, enrichments.get(Number(r.site_id)) ?? null, languages),
            );
          record = mergeRecords(record, rest, request.sets);
        }
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

  /** subdomains=merge: each row's site, then its domain's other sites (see entry()). */
  private async domainMembers(rows: RowData[]): Promise<Map<number, number[]>> {
    const domains = [...new Set(rows.map((r) => r.domain))];
    const found = await this.lists.domainSites(domains, MERGE_SITES_PER_DOMAIN);
    const byDomain = new Map<string, number[]>();
    for (const row of found) byDomain.set(row.domain, [...(byDomain.get(row.domain) ?? []), Number(row.id)]);
    const out = new Map<number, number[]>();
    for (const row of rows) {
      const id = Number(row.site_id);
      const rest = (byDomain.get(row.domain) ?? []).filter((m) => m !== id);
      out.set(id, [id, ...rest.slice(0, MERGE_SITES_PER_DOMAIN - 1)]);
    }
    return out;
  }

  /** The site columns of merged sites that are not rows of the page themselves. */
  private async memberRows(ids: number[]): Promise<Map<number, RowData>> {
    const out = new Map<number, RowData>();
    for (const row of await this.lists.siteRows(ids)) out.set(Number(row.site_id), row);
    return out;
  }

  private recordOf(
    row: RowData,
    slug: string,
    request: ListRequest,
    enrichment: Omit<SiteEnrichment, 'events'> | null,
    languages: string[],
  ): Record<string, unknown> {
    const record: Record<string, unknown> = {
      // Sites are keyed without their scheme: the one they last answered on (https before it was kept).
      url: `${row.scheme ?? 'https'}://${row.hostname}/`,
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

  /**
   * A link valid for LISTS_URL_TTL_SECONDS, absolute as the commercial API's: under PUBLIC_BASE_URL
   * when set, else under `origin` (the origin the request asking for it, or the one that created
   * the list, reached the service at). A path only for a list made before origins were kept.
   */
  url(listId: string, file: ListFile, origin: string | null, now = Date.now()): string {
    const expires = Math.floor(now / 1000) + this.options.ttlSeconds;
    const path = `/v2/lists/${listId}/files/${file}?expires=${expires}&signature=${this.signature(listId, file, expires)}`;
    const base = this.options.publicBaseUrl ?? origin;
    return base ? base.replace(/\/+$/, '') + path : path;
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
