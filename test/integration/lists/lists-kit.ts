import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromBuffer, type Entry } from 'yauzl';
import type { EntityManager } from 'typeorm';
import {
  SiteEnrichmentEntity,
  SiteEntity,
  SiteKeywordEntity,
  SiteLanguageEntity,
  SiteTechnologyEntity,
} from '../../../src/storage/entities';
import { versionKeyOf } from '../../../src/services/site-index/version-key';
import { eventually } from '../../helpers/eventually';
import { HttpResult, startTestService, TestService } from '../../helpers/test-service';

/** A seeded site: only what a test cares about; the rest gets neutral values. */
export interface SeedSite {
  hostname: string;
  /** The scheme the site answered on (default: none recorded). */
  scheme?: 'http' | 'https';
  domain?: string;
  tld?: string;
  isSubdomain?: boolean;
  country?: string | null;
  languages?: string[];
  keywords?: string[];
  industry?: string | null;
  companySize?: string | null;
  trafficRank?: number | null;
  rankSource?: 'import' | 'observed' | null;
  hits?: number;
  setsMask?: number;
  /** Months before now when the site was first seen (default 12). */
  firstSeenMonthsAgo?: number;
  enrichment?: Record<string, unknown>;
  /** monthsAgo: last confirmed (default a day ago); firstMonthsAgo: first seen (default 12). */
  techs: {
    slug: string;
    version?: string;
    monthsAgo?: number;
    firstMonthsAgo?: number;
    rootPath?: boolean;
  }[];
}

/** `count` sites rank1.net, rank2.net… ranked 1, 2… by traffic, each with `slug` at `version`. */
export function rankedSites(count: number, slug: string, version: string): SeedSite[] {
  return Array.from({ length: count }, (_, i) => ({
    hostname: `rank${i + 1}.net`,
    trafficRank: i + 1,
    techs: [{ slug, version }],
  }));
}

function monthsAgo(months: number): Date {
  const at = new Date();
  at.setUTCMonth(at.getUTCMonth() - months);
  at.setUTCDate(Math.min(at.getUTCDate(), 28));
  return new Date(at.getTime() - 3_600_000);
}

/** Inserts sites straight into the index (entities, no crawl): the shapes the analyses write. */
export async function seedSites(m: EntityManager, sites: SeedSite[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const s of sites) {
    const labels = s.hostname.split('.');
    const domain = s.domain ?? labels.slice(-2).join('.');
    const languages = s.languages ?? [];
    const result = await m.insert(SiteEntity, {
      hostname: s.hostname,
      scheme: s.scheme ?? null,
      domain,
      tld: s.tld ?? `.${labels[labels.length - 1]}`,
      isSubdomain: s.isSubdomain ?? s.hostname !== domain,
      language: languages[0] ?? null,
      languages: JSON.stringify(languages),
      country: s.country ?? null,
      title: s.hostname,
      hits: s.hits ?? 10,
      trafficRank: s.trafficRank ?? null,
      rankSource: s.rankSource ?? (s.trafficRank ? 'import' : null),
      industry: s.industry ?? null,
      companySize: s.companySize ?? null,
      languageCount: languages.length,
      setsMask: s.setsMask ?? 0,
      enrichedAt: new Date(),
      crawlAttemptedAt: new Date(),
      firstSeenAt: monthsAgo(s.firstSeenMonthsAgo ?? 12),
      lastAnalyzedAt: new Date(),
    });
    const siteId = Number(result.identifiers[0].id);
    ids.set(s.hostname, siteId);
    for (const t of s.techs) {
      const at = t.monthsAgo === undefined ? new Date(Date.now() - 86_400_000) : monthsAgo(t.monthsAgo);
      await m.insert(SiteTechnologyEntity, {
        siteId,
        slug: t.slug,
        name: t.slug,
        version: t.version ?? '',
        versionKey: versionKeyOf(t.version ?? ''),
        versions: JSON.stringify(t.version ? [t.version] : []),
        confidence: 100,
        rootPath: t.rootPath ?? true,
        firstSeenAt: monthsAgo(t.firstMonthsAgo ?? 12),
        confirmedAt: at,
      });
    }
    for (const language of languages) await m.insert(SiteLanguageEntity, { language, siteId });
    for (const keyword of s.keywords ?? []) await m.insert(SiteKeywordEntity, { keyword, siteId });
    if (s.enrichment)
      await m.insert(SiteEnrichmentEntity, {
        siteId,
        data: JSON.stringify(s.enrichment),
        pages: 1,
        updatedAt: new Date(),
      });
  }
  return ids;
}

export interface ListsKit {
  service: TestService;
  dir: string;
  /**
   * A request through the per-second limits: after a short 429 (never the daily or concurrent
   * ones) the service's rate-limit clock moves on by its Retry-After and the request goes again.
   */
  call(path: string, key: string, init?: { method?: string; body?: unknown }): Promise<HttpResult>;
  /** Polls GET /v2/lists/{id} until it leaves Calculating. */
  settle(id: string, key: string): Promise<any>;
  /** POST /v2/lists and settle. */
  make(key: string, body: Record<string, unknown>): Promise<any>;
  /** Downloads a (relative or absolute) link. */
  download(link: string): Promise<{ status: number; body: Buffer; text: string }>;
  close(): Promise<void>;
}

export async function startListsKit(settings: Record<string, string> = {}): Promise<ListsKit> {
  const dir = mkdtempSync(join(tmpdir(), 'lists-'));
  const service = await startTestService({
    LISTS_DIR: dir,
    LISTS_URL_SECRET: 'test-secret-0123456789',
    LISTS_SAMPLE_ROWS: '1000',
    ...settings,
  });
  const call: ListsKit['call'] = async (path, key, init = {}) => {
    for (let i = 0; ; i++) {
      let res: HttpResult;
      try {
        res = await service.request(path, { key, method: init.method, body: init.body });
      } catch (error) {
        // A kept-alive connection the server closed while a test blocked the event loop (SQLite).
        if (i > 2) throw error;
        continue;
      }
      const retryAfter = Number(res.headers.get('retry-after') ?? 0);
      if (res.status !== 429 || retryAfter > 2 || i > 10) return res;
      service.clock.advance(retryAfter * 1000);
    }
  };
  const settle: ListsKit['settle'] = async (id, key) => {
    const res = await eventually(
      async () => {
        const answer = await call(`/v2/lists/${id}`, key);
        return (answer.status !== 200 || answer.body.status !== 'Calculating') && answer;
      },
      { describe: `list ${id} to leave Calculating`, timeoutMs: 50_000, intervalMs: 250 },
    );
    if (res.status !== 200) throw new Error(`GET list ${id}: ${res.status} ${res.text}`);
    return res.body;
  };
  return {
    service,
    dir,
    call,
    settle,
    async make(key, body) {
      const res = await call('/v2/lists', key, { method: 'POST', body });
      if (res.status !== 200) throw new Error(`POST /v2/lists: ${res.status} ${res.text}`);
      return settle(res.body.id, key);
    },
    async download(link) {
      // full.zip of a just-finalized list: the list.files job may still be writing it (503).
      const res = await eventually(
        async () => {
          const answer = await fetch(new URL(link, service.url));
          if (answer.status !== 503) return answer;
          await answer.arrayBuffer();
          return undefined;
        },
        { describe: `${link} to be written (503 until then)`, intervalMs: 250 },
      );
      const body = Buffer.from(await res.arrayBuffer());
      return { status: res.status, body, text: body.toString('utf8') };
    },
    async close() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every entry of a ZIP file: name → content. */
export function unzip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error('no zip'));
      const files = new Map<string, string>();
      zip.on('entry', (entry: Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err ?? new Error('no stream'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(files));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** RFC 4180 CSV → records keyed by the header row. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell.replace(/\r$/, ''));
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}
