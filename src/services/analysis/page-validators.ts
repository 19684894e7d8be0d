import { createHash } from 'node:crypto';
import type { Database } from '../../storage/database';
import type { DetectionResult } from '../../detection';
import type { PageValidatorEntity } from '../../storage/entities';
import { PageValidatorRepository } from '../../storage/page-validator.repository';
import type { PageMemory, RememberedPage, RememberedRobots } from '../../fetch';

/** What a page's analysis left, reused when the page answers 304: its detection result and title. */
export interface PageAnalysisPayload {
  result: DetectionResult;
  title?: string;
}

/** One page to remember: the URL asked for, its validators and what the next analysis reuses. */
export interface PageToRemember extends RememberedPage {
  requestedUrl: string;
  payload: PageAnalysisPayload;
}

/** A site's robots.txt to remember: where it is, its validators and its body. */
export interface RobotsToRemember extends RememberedRobots {
  url: string;
}

/**
 * The largest robots.txt remembered (its row's text column holds 64 KiB on MariaDB, escaped as
 * JSON): a larger file is simply downloaded again, as before.
 */
const MAX_REMEMBERED_ROBOTS_CHARS = 16 * 1024;

/** A site's pages not seen by any analysis for this long are forgotten (the site's next crawl prunes them). */
export const PAGE_VALIDATORS_KEEP_DAYS = 90;
/** Links kept per page: enough for a crawl of 25 pages to continue from an unchanged page. */
const MAX_LINKS = 500;

/**
 * The database side of conditional re-crawls (src/fetch/page-memory.ts): page_validators, one row
 * per page URL, deleted with its site, and pruned of pages no analysis of the site has seen for
 * PAGE_VALIDATORS_KEEP_DAYS.
 */
export class PageValidatorStore implements PageMemory {
  private readonly validators: PageValidatorRepository;

  constructor(db: Database) {
    this.validators = new PageValidatorRepository(db);
  }

  async recall(url: string): Promise<RememberedPage | undefined> {
    const row = await this.validators.recall(hashOf(url));
    if (!row) return undefined;
    const data = JSON.parse(row.data) as Omit<RememberedPage, 'etag' | 'lastModified'>;
    return { ...data, etag: row.etag ?? undefined, lastModified: row.lastModified ?? undefined };
  }

  async recallRobots(url: string): Promise<RememberedRobots | undefined> {
    const page = await this.recall(url);
    const body = (page?.payload as { robots?: unknown } | undefined)?.robots;
    return page && typeof body === 'string'
      ? { etag: page.etag, lastModified: page.lastModified, body }
      : undefined;
  }

  /**
   * Stores (or refreshes) the pages of one analysis of the site, and its robots.txt, then prunes
   * its forgotten pages.
   */
  async remember(
    siteId: number,
    pages: PageToRemember[],
    at: Date,
    robots?: RobotsToRemember,
  ): Promise<void> {
    // A robots.txt that cannot be remembered (too large, or no longer sent with validators) must
    // not leave its last remembered copy behind: a 304 to stale validators would bring it back.
    const forget: string[] = [];
    const entries: (RememberedPage & { requestedUrl: string })[] = [];
    if (robots && (robots.etag || robots.lastModified) && robots.body.length <= MAX_REMEMBERED_ROBOTS_CHARS) {
      const { url, etag, lastModified, body } = robots;
      entries.push({
        requestedUrl: url,
        url,
        etag,
        lastModified,
        links: [],
        hostnames: [],
        languages: [],
        payload: { robots: body },
      });
    } else if (robots) forget.push(hashOf(robots.url));
    entries.push(...pages);
    const rows = new Map<string, Partial<PageValidatorEntity>>();
    for (const entry of entries) {
      if (!entry.etag && !entry.lastModified) continue;
      const { requestedUrl, etag, lastModified, url, links, hostnames, languages, payload } = entry;
      rows.set(hashOf(requestedUrl), {
        urlHash: hashOf(requestedUrl),
        siteId,
        etag: etag ?? null,
        lastModified: lastModified ?? null,
        data: JSON.stringify({ url, links: links.slice(0, MAX_LINKS), hostnames, languages, payload }),
        updatedAt: at,
      });
    }
    if (rows.size === 0 && forget.length === 0) return;
    await this.validators.remember(
      siteId,
      [...rows.values()],
      new Date(at.getTime() - PAGE_VALIDATORS_KEEP_DAYS * 86_400_000),
      forget,
    );
  }
}

function hashOf(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}
