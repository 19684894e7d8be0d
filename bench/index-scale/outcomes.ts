import { hostIndexOf, type SyntheticHost } from './host-catalogue';

/** One "background site crawl finished" line of a worker's log. */
export interface FinishedCrawl {
  domain: string;
  ok: boolean;
  pages: number;
  errors?: string[];
}

/**
 * What became of a site, from its crawl's log line: indexed, or why not. A redirect to a private
 * address is "private address refused" when the service refused it (ALLOWED_PRIVATE_RANGES) and
 * "unreachable" when it tried and nothing answered there.
 */
export function outcomeOf(crawl: FinishedCrawl): string {
  if (crawl.ok) return 'indexed';
  const error = crawl.errors?.[0] ?? '';
  if (/private|reserved|not allowed/i.test(error)) return 'private address refused';
  if (error.startsWith('RESPONSE_NOT_OK')) {
    const status = /^RESPONSE_NOT_OK (\d+)/.exec(error)?.[1];
    return status ? `http error ${status}` : 'http error (redirects)';
  }
  if (error.startsWith('NO_HTML_DOCUMENT')) return 'not HTML';
  if (/timed? ?out|timeout|deadline|in time|stalled|no response within/i.test(error)) return 'timed out';
  return 'unreachable';
}

export interface OutcomeTable {
  /** Sites per outcome. */
  shares: Map<string, number>;
  /** Per behaviour of the synthetic host: outcomes and the pages of the indexed ones. */
  byBehaviour: Map<string, { outcomes: Map<string, number>; sites: number; pages: number }>;
  /** Domains whose crawl finished more than once (a job done twice). */
  repeated: string[];
  finished: number;
}

export function tabulate(crawls: FinishedCrawl[], hosts: readonly SyntheticHost[]): OutcomeTable {
  const shares = new Map<string, number>();
  const byBehaviour: OutcomeTable['byBehaviour'] = new Map();
  const seen = new Map<string, number>();
  for (const crawl of crawls) {
    seen.set(crawl.domain, (seen.get(crawl.domain) ?? 0) + 1);
    const outcome = outcomeOf(crawl);
    shares.set(outcome, (shares.get(outcome) ?? 0) + 1);
    const index = hostIndexOf(crawl.domain);
    const behaviour = index !== undefined && hosts[index] ? hosts[index].behaviour : 'unknown';
    let row = byBehaviour.get(behaviour);
    if (!row) byBehaviour.set(behaviour, (row = { outcomes: new Map(), sites: 0, pages: 0 }));
    row.sites++;
    row.pages += crawl.pages;
    row.outcomes.set(outcome, (row.outcomes.get(outcome) ?? 0) + 1);
  }
  return {
    shares,
    byBehaviour,
    repeated: [...seen].filter(([, n]) => n > 1).map(([domain]) => domain),
    finished: crawls.length,
  };
}
