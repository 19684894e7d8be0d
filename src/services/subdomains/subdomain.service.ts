import type { Config } from '../../platform/config';
import { Database } from '../../storage/database';
import { JobKinds, JobQueue } from '../../jobs';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import { collectDnsSubdomains, discoverSubdomains, resolveName } from '../../subdomains';
import type { NameResolution } from '../../subdomains';
import { forEachConcurrently } from '../../fetch/concurrency';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';
import { toSubdomainRequest } from './subdomain-request';
import type { SubdomainsInput } from './subdomains.contract';
import type { SiteIndexService } from '../site-index/site-index.service';
import { subdomainSettingsFrom, type SubdomainSettings } from './subdomain-settings';
import { SubdomainPage, SubdomainStore } from './subdomain-store';

export type { StoredSubdomain, SubdomainPage } from './subdomain-store';

/** Payload of a `subdomains.discover` job. */
export interface SubdomainDiscoveryPayload {
  /** A registrable domain as normaliseRequestedDomain returns it. */
  domain: string;
}

/** What one discovery job did, for its log line and tests. */
export interface SubdomainDiscoveryReport {
  domain: string;
  /** Names found by the wordlist and the zone transfer (before de-duplication against storage). */
  discovered: number;
  wildcard: boolean;
  zoneTransfer: boolean;
  /** Names checked, and how many of them resolve, do not resolve, or gave no usable answer. */
  checked: Record<NameResolution, number>;
}

/** Stored names whose CNAME targets the inline pass also follows. */
const KNOWN_NAMES_FOR_CNAME_CHECKS = 25;
/** Unchecked names read per round of resolution checks. */
const CHECK_BATCH = 200;

/** The job (and marker) of the finder's first look at a domain; see `examineIfUnseen`. */
/** The unique key of the background crawl that indexes a domain's site when the finder first sees it. */
export function siteIndexKey(domain: string): string {
  return `site-index:${domain}`;
}

/** Payload of the `site.index` job: crawl the domain's site so its host names reach the index. */
export interface SiteIndexPayload {
  domain: string;
}

export function subdomainDiscoveryKey(domain: string): string {
  return `subdomains.discover:${domain}`;
}

/** 1 credit per 10 subdomains returned, rounded up over the whole request (credit-prices.ts). */
export function subdomainCredits(returned: number): number {
  return Math.ceil(returned / 10) * CREDIT_PRICES.subdomains.credits;
}

/**
 * The subdomain finder. Answers from `observed_hostnames` (crawls, certificates, DNS, discovery);
 * the first time it is asked about a domain it reads the domain's DNS records inline (bounded, so
 * the request stays inside the spec's 10 s) and leaves the slower work to a background job:
 * resolution checks of the new names and, when enabled, wordlist discovery and a zone transfer.
 */
export class SubdomainService {
  constructor(
    private readonly db: Database,
    private readonly store: SubdomainStore,
    private readonly jobs: JobQueue,
    private readonly metering: MeteringService,
    private readonly settings: SubdomainSettings,
  ) {}

  /**
   * One page per requested domain, in the order asked. Business plan only; charged after success
   * for the names returned. Input errors are raised before anything is counted or charged.
   */
  async find(caller: Caller, input: SubdomainsInput): Promise<SubdomainPage[]> {
    const request = toSubdomainRequest(input);
    return this.metering.run(
      caller,
      {
        feature: 'subdomains',
        // An answer with no names is free, so nothing is required up front; the charge after the
        // work still refuses (403) a caller who cannot pay for what was found.
        minimumCost: 0,
        cost: (pages) => subdomainCredits(pages.reduce((sum, page) => sum + page.subdomains.length, 0)),
        reason: CREDIT_PRICES.subdomains.endpoint,
      },
      async () => {
        await Promise.all(request.domains.map((domain) => this.examineIfUnseen(domain)));
        const pages: SubdomainPage[] = [];
        for (const domain of request.domains) {
          pages.push(
            await this.store.page(domain, {
              limit: request.limit,
              after: request.after.get(domain),
              includeUnresolvable: request.includeUnresolvable,
            }),
          );
        }
        return pages;
      },
    );
  }

  /**
   * A domain is unseen until the finder has looked at it once, which the discovery job's unique
   * key records (names recorded by crawls alone do not count: the domain's DNS still has to be
   * read). Concurrent first requests may both read DNS; the unique key keeps the job single.
   */
  private async examineIfUnseen(domain: string): Promise<void> {
    const key = subdomainDiscoveryKey(domain);
    if (await this.jobs.findByUniqueKey(key)) return;
    const knownNames = await this.store.someNames(domain, KNOWN_NAMES_FOR_CNAME_CHECKS);
    const observations = await collectDnsSubdomains(domain, {
      ...this.settings.dns,
      deadlineMs: this.settings.inlineBudgetMs,
      knownNames,
    });
    const at = new Date();
    const payload: SubdomainDiscoveryPayload = { domain };
    await this.db.transaction(async (m) => {
      await this.store.record(
        m,
        domain,
        observations.map((o) => o.name),
        'dns',
        at,
      );
      await this.jobs.enqueue(m, JobKinds.subdomainDiscovery, payload, { uniqueKey: key });
      // The crawl reveals what DNS does not: linked hosts, asset hosts, redirects, certificate names.
      const crawl: SiteIndexPayload = { domain };
      await this.jobs.enqueue(m, JobKinds.siteIndex, crawl, { uniqueKey: siteIndexKey(domain) });
    });
  }

  /**
   * The background job's work for one domain. Idempotent: names are upserted (a re-run refreshes
   * "last seen") and only unchecked names are resolved. Stops early when `signal` aborts.
   */
  async discover(domain: string, signal?: AbortSignal): Promise<SubdomainDiscoveryReport> {
    const report: SubdomainDiscoveryReport = {
      domain,
      discovered: 0,
      wildcard: false,
      zoneTransfer: false,
      checked: { resolvable: 0, unresolvable: 0, unknown: 0 },
    };
    const { activeDiscovery, discovery } = this.settings;
    if (activeDiscovery || discovery.zoneTransfer) {
      // With only zone transfers enabled, an empty wordlist skips the guessing.
      const result = await discoverSubdomains(domain, {
        ...discovery,
        ...(activeDiscovery ? {} : { wordlist: [] }),
      });
      Object.assign(report, { wildcard: result.wildcard, zoneTransfer: result.zoneTransfer });
      report.discovered = result.observations.length;
      const named = (source: string) =>
        result.observations.filter((o) => o.source === source).map((o) => o.name);
      const at = new Date();
      const guessed = await this.db.transaction(async (m) => {
        await this.store.record(m, domain, named('zone-transfer'), 'zone-transfer', at);
        return this.store.record(m, domain, named('wordlist'), 'wordlist', at);
      });
      // Wordlist hits resolved a moment ago (and were checked against the wildcard answers).
      await this.store.markResolution(domain, new Map(guessed.map((name) => [name, 'resolvable' as const])));
    }
    await this.checkUnchecked(domain, report, signal);
    return report;
  }

  /** Resolves every name not yet checked, with bounded concurrency, inside the check budget. */
  private async checkUnchecked(domain: string, report: SubdomainDiscoveryReport, signal?: AbortSignal) {
    const budget = AbortSignal.timeout(this.settings.checkBudgetMs);
    const stop = signal ? AbortSignal.any([signal, budget]) : budget;
    let after: string | undefined;
    while (!stop.aborted) {
      const names = await this.store.uncheckedNames(domain, CHECK_BATCH, after);
      if (names.length === 0) return;
      const results = new Map<string, NameResolution>();
      await forEachConcurrently(
        names,
        this.settings.concurrency,
        async (name) => {
          const resolution = await resolveName(name, this.settings.dns);
          results.set(name, resolution);
          report.checked[resolution] += 1;
        },
        stop,
      );
      await this.store.markResolution(domain, results);
      // Names that gave no usable answer stay unchecked; the cursor moves past them.
      after = names[names.length - 1];
    }
  }
}

/** The finder as the service graph builds it: storage through the site index, settings from config. */
export function buildSubdomainService(deps: {
  config: Config;
  db: Database;
  siteIndex: SiteIndexService;
  queue: JobQueue;
  metering: MeteringService;
}): SubdomainService {
  const store = new SubdomainStore(deps.db, deps.siteIndex);
  return new SubdomainService(deps.db, store, deps.queue, deps.metering, subdomainSettingsFrom(deps.config));
}
