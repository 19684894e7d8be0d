import { promisify } from 'node:util';
import { gunzip as gunzipCallback, gzip as gzipCallback } from 'node:zlib';
import { boundHtml, LIMITS, type DetectionInput } from '../../detection';
import type { Database } from '../../storage/database';
import { PageSampleRepository, type SampleWrite } from '../../storage/page-sample.repository';

const gzip = promisify(gzipCallback);
const gunzip = promisify(gunzipCallback);

/**
 * What a sample keeps of a page's detection input. The html is bounded as the engine bounds it and
 * every other part by the engine's limits, but script bodies and stylesheets also by a total: a
 * sample serves re-evaluation, and the engine's 50 scripts of 1 MB each would make one site's
 * sample as large as thousands of others'.
 */
export const SAMPLE_LIMITS = {
  scriptsTotal: 2_000_000,
  /** A sample larger than this once gzipped is not stored (the site keeps its previous one). */
  gzippedBytes: 4_000_000,
} as const;

/**
 * While the store is full, only sites already sampled are refreshed; it is counted again after this
 * long, in case samples went with their sites.
 */
const FULL_RECHECK_MS = 10 * 60_000;

/** A stored sample, decoded: the input the engines re-run on. */
export interface PageSample {
  siteId: number;
  url: string;
  capturedAt: Date;
  input: DetectionInput;
}

/** Reads samples in batches, in site order: what the trend-break check consumes. */
export type PageSampleReader = (batchSize: number) => AsyncIterable<PageSample[]>;

/**
 * The bounded store of page samples (page_samples): a site's front page as the engine saw it, kept
 * so a fingerprint change can be re-run on real pages before it breaks a trend. At most `max` rows
 * (PAGE_SAMPLES_MAX; 0 stores none); once full, only sites already sampled are refreshed.
 */
export class PageSampleStore {
  private readonly samples: PageSampleRepository;
  /** When the store was last found full (0: not known to be full). */
  private fullSince = 0;

  constructor(
    db: Database,
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.samples = new PageSampleRepository(db);
  }

  get enabled(): boolean {
    return this.max > 0;
  }

  /** Stores (or refreshes) the site's sample; returns what was done, or null when nothing was tried. */
  async capture(siteId: number, input: DetectionInput, at: Date): Promise<SampleWrite | null> {
    if (!this.enabled) return null;
    const data = await gzip(JSON.stringify(sampleOf(input)));
    if (data.length > SAMPLE_LIMITS.gzippedBytes) return null;
    const knownFull = this.fullSince > 0 && this.now() - this.fullSince < FULL_RECHECK_MS;
    const done = await this.samples.write(
      { siteId, url: input.url, capturedAt: at, data },
      this.max,
      knownFull,
    );
    if (done === 'full' && !knownFull) this.fullSince = this.now();
    if (done === 'added') this.fullSince = 0;
    return done;
  }

  count(): Promise<number> {
    return this.samples.count();
  }

  /** Every sample, `batchSize` at a time (never all in memory), decoded. */
  readonly read: PageSampleReader = (batchSize) => this.batches(batchSize);

  private async *batches(batchSize: number): AsyncIterable<PageSample[]> {
    let after = 0;
    for (;;) {
      const rows = await this.samples.batch(after, batchSize);
      if (rows.length === 0) return;
      after = rows[rows.length - 1].siteId;
      yield await Promise.all(
        rows.map(async (row) => ({
          siteId: row.siteId,
          url: row.url,
          capturedAt: row.capturedAt,
          input: JSON.parse((await gunzip(row.data)).toString('utf8')) as DetectionInput,
        })),
      );
      if (rows.length < batchSize) return;
    }
  }
}

/**
 * The parts of a static page's input the engine reads, bounded (see SAMPLE_LIMITS). What only a
 * browser gives (rendered) is left out: its js values depend on the chains the engine of the day
 * asked for, so a candidate engine could not be judged fairly on them.
 */
export function sampleOf(input: DetectionInput): DetectionInput {
  let budget = SAMPLE_LIMITS.scriptsTotal;
  const within = (texts: readonly string[] | undefined, count: number, each: number): string[] => {
    const kept: string[] = [];
    for (const text of (texts ?? []).slice(0, count)) {
      const part = String(text).slice(0, Math.min(each, budget));
      if (part.length === 0) break;
      kept.push(part);
      budget -= part.length;
    }
    return kept;
  };
  const scripts = within(input.scripts, LIMITS.scriptBodies, LIMITS.scriptBody);
  const css = within(input.css, LIMITS.scriptBodies, LIMITS.cssTotal);
  return {
    url: String(input.url ?? '').slice(0, LIMITS.url),
    ...(input.status !== undefined ? { status: input.status } : {}),
    ...(input.headers ? { headers: input.headers } : {}),
    ...(input.cookies ? { cookies: input.cookies } : {}),
    html: boundHtml(typeof input.html === 'string' ? input.html : ''),
    ...(input.scriptSrc ? { scriptSrc: input.scriptSrc.slice(0, LIMITS.scriptUrls) } : {}),
    ...(scripts.length ? { scripts } : {}),
    ...(css.length ? { css } : {}),
    ...(input.robots ? { robots: input.robots.slice(0, LIMITS.robots) } : {}),
    ...(input.dns ? { dns: input.dns } : {}),
    ...(input.certIssuer ? { certIssuer: input.certIssuer.slice(0, LIMITS.headerValue) } : {}),
  };
}
