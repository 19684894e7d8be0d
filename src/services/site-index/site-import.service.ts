import type { Readable } from 'node:stream';
import { Database } from '../../storage/database';
import { TrafficRankRepository } from '../../storage/traffic-rank.repository';
import { ValidationError } from '../../errors';
import { JobKinds } from '../../jobs/job-kinds';
import { JobQueue } from '../../jobs/job-queue';
import { registrableDomainOf } from './site-key';
import { SeenDomains } from './seen-domains';
import { siteIndexKey, type SiteIndexPayload } from '../subdomains/subdomain.service';

export const IMPORT_FORMATS = ['tranco', 'majestic', 'plain'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportOptions {
  format: ImportFormat;
  /** Stop after this many imported domains. */
  limit?: number;
  /** Enqueue one site.index job per domain (once per domain, ever: re-imports enqueue nothing twice). */
  crawl?: boolean;
  /** Called after every batch and at the end. */
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  /** Lines read (the header of a Majestic file included). */
  read: number;
  /** Domains whose rank was stored. */
  imported: number;
  /** Lines that hold no valid domain or rank. */
  invalid: number;
  /** Later lines of a domain already imported from this file (its first, best rank is kept). */
  duplicates: number;
  /** site.index jobs enqueued by this import. */
  queued: number;
}

export interface ImportSummary extends ImportProgress {
  /** Line numbers of the first invalid lines (at most MAX_REPORTED_LINES). */
  invalidLines: number[];
  /** Sites of the index whose rank this import set. */
  sitesRanked: number;
}

const BATCH = 1_000;
const MAX_REPORTED_LINES = 100;
const MAX_LINE = 2_000;

/**
 * Imports a ranked domain list (a Tranco `rank,domain` CSV, a Majestic Million CSV with its header,
 * or one domain a line where the line number is the rank) into the index's ranks: streamed line
 * by line and written in batches, so memory stays flat whatever the file size (one set of the
 * domains seen, to keep each domain's first rank). Each entry is reduced to its registrable domain
 * (www.example.co.uk → example.co.uk); an invalid line is counted and reported by number, never
 * fatal. Ranks land in domain_ranks; sites of the index on those domains take them at once, and a
 * site analysed later takes its rank when it is first recorded.
 */
export class SiteImportService {
  private readonly ranks: TrafficRankRepository;

  constructor(
    private readonly db: Database,
    private readonly queue: JobQueue,
  ) {
    this.ranks = new TrafficRankRepository(db);
  }

  async importRanks(input: Readable, options: ImportOptions): Promise<ImportSummary> {
    if (!(IMPORT_FORMATS as readonly string[]).includes(options.format))
      throw new ValidationError('format', `format must be one of ${IMPORT_FORMATS.join(', ')}`);
    const summary: ImportSummary = {
      read: 0,
      imported: 0,
      invalid: 0,
      duplicates: 0,
      queued: 0,
      invalidLines: [],
      sitesRanked: 0,
    };
    const seen = new SeenDomains();
    let batch: { domain: string; rank: number }[] = [];
    let columns: { rank: number; domain: number } | null =
      options.format === 'tranco' ? { rank: 0, domain: 1 } : null;
    const invalid = (line: number) => {
      summary.invalid++;
      if (summary.invalidLines.length < MAX_REPORTED_LINES) summary.invalidLines.push(line);
    };
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      const stored = await this.store(rows, options);
      summary.imported += rows.length;
      summary.sitesRanked += stored.sitesRanked;
      summary.queued += stored.queued;
      options.onProgress?.(progressOf(summary));
    };
    for await (const raw of linesOf(input)) {
      const lineNumber = ++summary.read;
      if (options.limit !== undefined && summary.imported + batch.length >= options.limit) break;
      const line = raw.trim();
      if (line === '' || line.length > MAX_LINE) {
        if (line !== '') invalid(lineNumber);
        continue;
      }
      if (options.format === 'majestic' && columns === null) {
        columns = majesticColumns(line);
        if (!columns)
          throw new ValidationError('file', 'A Majestic file starts with its header (GlobalRank,…,Domain,…)');
        continue;
      }
      const entry = parseEntry(line, lineNumber, columns);
      const domain = entry ? registrableDomainOf(entry.host) : null;
      if (!entry || !domain) {
        invalid(lineNumber);
        continue;
      }
      if (!seen.add(domain)) {
        summary.duplicates++;
        continue;
      }
      batch.push({ domain, rank: entry.rank });
      if (batch.length >= BATCH) await flush();
    }
    await flush();
    options.onProgress?.(progressOf(summary));
    return summary;
  }

  /** One batch: ranks upserted, the index's sites on those domains re-ranked, jobs enqueued. */
  private async store(
    rows: { domain: string; rank: number }[],
    options: ImportOptions,
  ): Promise<{ sitesRanked: number; queued: number }> {
    const at = new Date();
    return this.db.transaction(async (m) => {
      await this.ranks.upsertDomainRanks(m, rows, options.format, at);
      // A domain's rank goes to its sites on every port, so a list can be tried against a local site.
      const rankOf = new Map(rows.map((row) => [row.domain, row.rank]));
      const sites = await this.ranks.domainSites(m, [...rankOf.keys()]);
      for (const site of sites) await this.ranks.setImportedRank(m, site.id, rankOf.get(site.domain)!);
      let queued = 0;
      if (options.crawl) {
        for (const { domain } of rows) {
          const payload: SiteIndexPayload = { domain };
          const job = await this.queue.enqueue(m, JobKinds.siteIndex, payload, {
            uniqueKey: siteIndexKey(domain),
          });
          if (job.created) queued++;
        }
      }
      return { sitesRanked: sites.length, queued };
    });
  }
}

/**
 * The lines of a stream, read as they are consumed: the next chunk is read only when the lines of
 * the previous one have been taken, so a consumer that awaits its database writes holds the file
 * back (readline's async iterator keeps reading and queues every line it has not handed out yet:
 * a million-line import kept most of the file in the heap). A line may end with \n or \r\n.
 */
export async function* linesOf(input: Readable, maxLine = 65_536): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let carry = '';
  /** Inside a line longer than maxLine, already handed out (cut): the rest of it is dropped. */
  let skipping = false;
  const line = (text: string) => (text.endsWith('\r') ? text.slice(0, -1) : text);
  for await (const chunk of input) {
    let text =
      carry + (typeof chunk === 'string' ? chunk : decoder.decode(chunk as Buffer, { stream: true }));
    if (skipping) {
      const end = text.indexOf('\n');
      if (end < 0) continue;
      text = text.slice(end + 1);
      skipping = false;
    }
    const parts = text.split('\n');
    carry = parts.pop() ?? '';
    for (const part of parts) yield line(part);
    if (carry.length > maxLine) {
      yield carry; // too long to be a domain: the caller counts it invalid
      carry = '';
      skipping = true;
    }
  }
  const rest = carry + decoder.decode();
  if (rest !== '' && !skipping) yield line(rest);
}

function progressOf(summary: ImportSummary): ImportProgress {
  const { read, imported, invalid, duplicates, queued } = summary;
  return { read, imported, invalid, duplicates, queued };
}

/** The rank and domain columns of a Majestic header; null when the line is not one. */
function majesticColumns(header: string): { rank: number; domain: number } | null {
  const names = header.split(',').map((name) => name.trim().toLowerCase());
  const rank = names.indexOf('globalrank');
  const domain = names.indexOf('domain');
  return rank >= 0 && domain >= 0 ? { rank, domain } : null;
}

/** A line's rank and host (columns for CSV formats; the line number for plain lists). */
function parseEntry(
  line: string,
  lineNumber: number,
  columns: { rank: number; domain: number } | null,
): { rank: number; host: string } | null {
  let rank = lineNumber;
  let value = line;
  if (columns) {
    const cells = line.split(',');
    const rankText = cells[columns.rank]?.trim() ?? '';
    if (!/^\d{1,9}$/.test(rankText)) return null;
    rank = Number(rankText);
    value = cells[columns.domain]?.trim() ?? '';
  }
  if (rank < 1) return null;
  const host = value
    .replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')
    .split(/[/?#]/)[0]
    .replace(/:\d+$/, '')
    .toLowerCase();
  if (!/^[a-z0-9.-]{1,253}$/.test(host) || !host.includes('.')) return null;
  return { rank, host };
}
