import { MeteringRepository } from '../storage/metering.repository';
import { scriptRunnerOf } from '../storage/script-runner';
import type { Config } from '../platform/config';
import { Database } from '../storage/database';
import type { DetectionEngine } from '../detection';
import { FingerprintPackRepository } from '../storage/fingerprint-pack.repository';
import { defaultLayersOf, FingerprintSource } from './fingerprints/fingerprint-source';
import { FingerprintPackService } from './fingerprints/fingerprint-pack.service';
import { ApiKeyRevokedEvent, EventBus, PlanChangedEvent, TOPICS } from '../platform/event-bus';
import { rawSqlOf } from '../storage/raw-sql';
import { PlanCatalog } from '../plans/plan-catalog';
import { loadPlanCatalog } from '../plans/plans-file';
import type { SharedRedis } from '../redis/redis-connection';
import { announceEnqueues } from '../redis/redis-job-wakeups';
import { RedisHostBackoff } from '../redis/redis-host-backoff';
import { RedisHostPacer } from '../redis/redis-host-pacer';
import { MemoryHostPacer } from '../fetch/host-pacing';
import { DatabaseHostBackoff } from './analysis/database-host-backoff';
import { MemoryHostSlots } from '../fetch/host-slots';
import { RedisHostSlots } from '../redis/redis-host-slots';
import { PageValidatorStore } from './analysis/page-validators';
import { PageSampleStore } from './analysis/page-samples';
import type { FetchPageOptions } from '../fetch';
import { JobQueue } from '../jobs/job-queue';
import { AccountService } from './platform/account.service';
import { AnalysisService } from './analysis/analysis.service';
import { AuthService } from './platform/auth.service';
import { CatalogueService } from './catalogue/catalogue.service';
import { TrendService } from './trends/trends.service';
import { CallbackService } from './platform/callback.service';
import { CreditService } from './platform/credit.service';
import { buildEmailVerifier, EmailVerificationService } from './verify/email-verification.service';
import { MeteringService } from './platform/metering.service';
import { MyAccountService } from './platform/my-account.service';
import { buildPageRenderer, PageRenderer } from './analysis/page-renderer';
import { findBrowserExecutable, resolverLookup } from '../fetch/browser';
import { QuotaService } from './platform/quota.service';
import { QuotaClock } from './platform/quota-clock';
import { UsageMeter } from './platform/usage-meter';
import { RateLimitClock, systemRateLimitClock } from './platform/rate-limiter';
import { SiteAnalyzer } from './analysis/site-analyzer';
import { SiteIndexService } from './site-index/site-index.service';
import { SiteEnricher } from './analysis/site-enricher';
import { BoundedSiteEmailVerifier } from './analysis/site-email-verifier';
import { LookupV2Service } from './lookup/lookup-v2.service';
import { vulnerabilitiesFromExposure } from './sbom/sbom-vulnerabilities';
import { SbomService } from './sbom/sbom.service';
import { DatasetService } from './datasets/dataset.service';
import { LeadListService } from './lists/lead-list.service';
import { StoredSiteReader } from './lookup/stored-site-reader';
import { StoredSiteRepository } from '../storage/stored-site.repository';
import { Mailer } from './platform/mailer';
import { DatabasePaymentProvider } from './datasets/payment-provider';
import { TrafficRankService } from './site-index/traffic-rank.service';
import { FreshnessService } from './site-index/freshness.service';
import { AcceptedAnalyses } from './analysis/accepted-analyses';
import { OperatorImportService } from './site-index/operator-import.service';
import { SiteImportService } from './site-index/site-import.service';
import { buildSubdomainService, SubdomainService } from './subdomains/subdomain.service';
import { ChangeFeedService } from './changes/change-feed.service';
import { MonitorService } from './monitors/monitor.service';
import { VulnerabilityChangeRecorder } from './monitors/vulnerability-change-recorder';
import { SiteGraphService } from './site-graph/site-graph.service';
import { GeoIpLookup, openGeoIpDatabase } from '../geoip/geoip-database';
import { ServiceMetrics } from '../platform/service-metrics';
import { OperationalFiguresService } from './platform/operational-figures.service';
import { logger } from '../platform/logger';
import { RetentionService } from './platform/retention.service';
import { parseSecretsKey, SecretVault } from './platform/secret-vault';
import { HealthService } from './platform/health.service';
import { VulnerabilityService } from './vulns/vulnerability.service';
import { ExposureService } from './vulns/exposure.service';

/**
 * The service graph, built once per process and shared by every transport and worker.
 * Construction is plain: each service receives exactly the collaborators it uses.
 */
export interface Services {
  config: Config;
  /** The built-in plans with PLANS_FILE's overrides and additions. */
  plans: PlanCatalog;
  db: Database;
  events: EventBus;
  /** The deployment's Redis (REDIS_URL): shared rate limits and job wake-ups; null in one process. */
  redis: SharedRedis | null;
  /**
   * The clock of the per-key rate limits (rateLimiterFor), as the quota periods have theirs
   * (QuotaClock): Date.now. Tests put a clock they move in its place, so that a test of a 1/s
   * limit steps through its windows instead of sleeping a second on the real clock.
   */
  rateLimitClock: RateLimitClock;
  queue: JobQueue;
  accounts: AccountService;
  auth: AuthService;
  credits: CreditService;
  quota: QuotaService;
  metering: MeteringService;
  /** The group commit of quota counts and charges behind metering (and its one-trip figures). */
  meter: UsageMeter;
  myAccount: MyAccountService;
  callbacks: CallbackService;
  /** The active fingerprint set, switched live: each unit of work takes `current()` when it starts. */
  fingerprints: FingerprintSource;
  /** The engine of the active set now (`fingerprints.current()`); an analysis keeps the one it took. */
  readonly engine: DetectionEngine;
  /** Fingerprint packs: load, unload, activate, status (CLI and operator mutations). */
  fingerprintPacks: FingerprintPackService;
  siteIndex: SiteIndexService;
  analyzer: SiteAnalyzer;
  /** Front pages of sites as the engine saw them (PAGE_SAMPLES_MAX), for fingerprints:diff. */
  pageSamples: PageSampleStore;
  /** Browser rendering (RENDER, BROWSER_*): lazily started, closed with the service. */
  renderer: PageRenderer;
  analysis: AnalysisService;
  subdomains: SubdomainService;
  /** The change feed and site timelines (GET /v2/changes/, GraphQL site, technologyChanged). */
  changes: ChangeFeedService;
  /** Monitors (POST /v2/monitors): callbacks of matching changes, scheduled analyses of watched sites. */
  monitors: MonitorService;
  /** The index as a graph: sites running a technology, versions, the batched reads of site nodes (GraphQL). */
  siteGraph: SiteGraphService;
  verification: EmailVerificationService;
  /** The public technology and category catalogue. */
  catalogue: CatalogueService;
  /** Adoption trends from the trend aggregates (GET /v2/trends/, GraphQL technologyTrend, categoryTrend). */
  trends: TrendService;
  /** GeoIP of the addresses sites answer on (GEOIP_DATABASE_PATH or the bundled DB-IP Lite). */
  geoip: GeoIpLookup;
  /** The accounts' callback signing secrets, encrypted at rest under SECRETS_KEY. */
  secrets: SecretVault;
  /** Removes finished work past its retention period (run by the worker). */
  retention: RetentionService;
  /** The enrichment step of every analysis (fetch facts + GeoIP + pricing → SiteEnrichment, stored in the index). */
  enricher: SiteEnricher;
  /** Stored sites in the published shapes (Lookup v2, Live/Crawl v2 sets, their callbacks). */
  storedSites: StoredSiteReader;
  /** Vulnerability records imported offline (`admin vulns:import`, `vulns:status`). */
  vulnerabilities: VulnerabilityService;
  /** Sites' exposure and the reverse query (GET /v2/exposure/, /v2/exposure/sites/, GraphQL). */
  exposure: ExposureService;
  /** Monitors' vulnerability changes: scheduled by each import batch, recorded by a job (the worker). */
  vulnerabilityChanges: VulnerabilityChangeRecorder;
  /** GET /v2/sbom/: a site's SBOM from the index. */
  sbom: SbomService;
  lookupV2: LookupV2Service;
  trafficRanks: TrafficRankService;
  /** Bulk import of ranked domain lists (`npm run admin -- sites:import`). */
  siteImport: SiteImportService;
  operatorImport: OperatorImportService;
  acceptedAnalyses: AcceptedAnalyses;
  /** Re-analysis of stale sites (the worker runs it every minute). */
  freshness: FreshnessService;
  /** Prometheus metrics of this process (served at /metrics when METRICS_TOKEN is set). */
  metrics: ServiceMetrics;
  /** Database-wide aggregates read at scrape time. */
  figures: OperationalFiguresService;
  /** Lead lists (POST /v2/lists): create, calculate (job), finalize, files. */
  lists: LeadListService;
  /** Dataset orders (POST /dataset/v1/): quote and build (jobs), confirm (payment provider). */
  datasets: DatasetService;
  /** Transactional emails (SMTP_URL, or the log). */
  mailer: Mailer;
  /** /healthz and /readyz: can the process read and write its database, is it stopping. */
  health: HealthService;
}

/** What the fetcher is allowed to do, from the settings. */
export function fetchOptionsOf(config: Config): FetchPageOptions {
  return {
    userAgent: config.FETCH_USER_AGENT,
    timeoutMs: config.FETCH_TIMEOUT_MS,
    connectTimeoutMs: config.FETCH_CONNECT_TIMEOUT_MS,
    maxBodyBytes: config.FETCH_MAX_BODY_BYTES,
    maxRedirects: config.FETCH_MAX_REDIRECTS,
    maxScripts: config.FETCH_MAX_SCRIPTS,
    maxScriptBytes: config.FETCH_MAX_SCRIPT_BYTES,
    maxStylesheets: config.FETCH_MAX_STYLESHEETS,
    rejectUnauthorized: config.FETCH_TLS_VERIFY,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    allowedPrivateRanges: config.ALLOWED_PRIVATE_RANGES,
    dnsServers: config.DNS_SERVERS,
    dnsTimeoutMs: config.DNS_TIMEOUT_MS,
    // Connections resolve names through DNS_SERVERS too (the system resolver when unset).
    lookup: resolverLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
  };
}

export async function buildServices(
  config: Config,
  db: Database,
  events = new EventBus(),
  redis: SharedRedis | null = null,
): Promise<Services> {
  const secrets = new SecretVault(db, config.SECRETS_KEY ? parseSecretsKey(config.SECRETS_KEY) : null);
  const report = await secrets.prepare();
  if (report.migrated > 0) logger.info(report, 'plaintext signing secrets encrypted with SECRETS_KEY');
  // info, not warn: the admin CLI prints JSON on stdout with logs at warn.
  if (report.plaintext > 0) logger.info(report, 'signing secrets are stored in plaintext: set SECRETS_KEY');
  const plans = loadPlanCatalog(config.PLANS_FILE);
  const sql = rawSqlOf(db);
  const quotaClock = new QuotaClock(() => new Date(), config.DEMO_DAILY_REQUESTS);
  // A revocation the meter finds is announced like any other, so every key cache drops the key.
  const meterStorage = MeteringRepository.of(db, sql);
  const meter = new UsageMeter(
    meterStorage,
    plans,
    quotaClock,
    events,
    (revoked: ApiKeyRevokedEvent) => events.publish(TOPICS.apiKeyRevoked, revoked),
    // Where the meter sends its batches whole (see UsageMeter), if anywhere.
    scriptRunnerOf(db, { mysqlOneTrip: config.METER_ONE_TRIP }),
  );
  const credits = new CreditService(db, events, meter);
  const accounts = new AccountService(db, credits, plans, events, secrets);
  const demoAccountId = config.DEMO_API_KEY ? await accounts.ensureDemoAccount() : null;
  const auth = new AuthService(
    db,
    sql,
    { key: config.DEMO_API_KEY, accountId: demoAccountId },
    config.KEY_CACHE_SECONDS,
    // With Redis every revocation, the admin CLI's included, is announced to every process.
    events.shared,
  );
  forgetChangedKeys(events, auth);
  const quota = new QuotaService(meterStorage, plans, quotaClock);
  const metering = new MeteringService(meter, credits, plans);
  const queue = new JobQueue(db, { defaultMaxAttempts: config.JOB_MAX_ATTEMPTS });
  if (redis) announceEnqueues(queue, redis);
  const callbacks = new CallbackService(db, queue, {
    retryWindowMs: config.CALLBACK_RETRY_HOURS * 3_600_000,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    allowedPrivateRanges: config.ALLOWED_PRIVATE_RANGES,
    lookup: resolverLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
    secrets,
  });
  const myAccount = new MyAccountService(accounts, credits, quota, metering, callbacks);
  const packRows = new FingerprintPackRepository(db);
  const defaultLayers = defaultLayersOf(config.FINGERPRINTS_PATH, config.FINGERPRINTS_CORRECTIONS === 'on');
  const engines = await FingerprintSource.start({
    packs: packRows,
    defaultLayers,
    pollSeconds: config.FINGERPRINTS_POLL_SECONDS,
    events,
  });
  const metrics = new ServiceMetrics();
  metrics.setFingerprintCount(engines.current().fingerprints.technologies.length);
  engines.onSwitch((next) => metrics.setFingerprintCount(next.fingerprints.technologies.length));
  const changes = new ChangeFeedService(db, metering, engines);
  const monitors = new MonitorService(db, changes, callbacks, credits, plans);
  const siteIndex = new SiteIndexService(
    db,
    (recorded) => {
      for (const change of recorded) events.publish(TOPICS.technologyChanged, change);
    },
    (m, recorded) => monitors.deliverWithin(m, recorded),
  );
  const emailVerifier = buildEmailVerifier(config);
  // One pacer for the fetcher and the browser: HOST_REQUESTS_PER_SECOND bounds both together.
  const hostPacer =
    config.HOST_REQUESTS_PER_SECOND === 0
      ? undefined
      : redis
        ? new RedisHostPacer(redis, config.HOST_REQUESTS_PER_SECOND)
        : new MemoryHostPacer(config.HOST_REQUESTS_PER_SECOND);
  const renderer = buildPageRenderer(engines, config.RENDER, {
    executablePath: findBrowserExecutable(config.BROWSER_EXECUTABLE),
    concurrency: config.BROWSER_CONCURRENCY,
    recyclePages: config.BROWSER_RECYCLE_PAGES,
    pageTimeoutMs: config.BROWSER_PAGE_TIMEOUT_MS,
    settleMs: config.BROWSER_SETTLE_MS,
    memoryMb: config.BROWSER_MEMORY_MB,
    userAgent: config.FETCH_USER_AGENT,
    ignoreHttpsErrors: !config.FETCH_TLS_VERIFY,
    allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
    allowedPrivateRanges: config.ALLOWED_PRIVATE_RANGES,
    lookup: resolverLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
    hostPacer,
  });
  const geoip = openGeoIpDatabase(config.GEOIP_DATABASE_PATH);
  const enricher = new SiteEnricher(
    geoip,
    (slug) => engines.current().fingerprints.technologyBySlug(slug)?.pricing,
  );
  const siteEmailVerifier = config.ENRICH_VERIFY_EMAILS
    ? new BoundedSiteEmailVerifier((email) => emailVerifier.verify(email))
    : undefined;
  const pageSamples = new PageSampleStore(db, config.PAGE_SAMPLES_MAX);
  // Without Redis the database carries it, so worker processes on one database share it.
  const hostBackoff = redis ? new RedisHostBackoff(redis) : new DatabaseHostBackoff(db);
  const analyzer = new SiteAnalyzer(
    engines,
    siteIndex,
    events,
    fetchOptionsOf(config),
    {
      maxPages: config.CRAWL_MAX_PAGES,
      concurrencyPerHost: config.CRAWL_CONCURRENCY_PER_HOST,
      deadlineMs: config.CRAWL_DEADLINE_MS,
      maxCrawlDelaySeconds: config.ROBOTS_CRAWL_DELAY_MAX_SECONDS,
      hostBackoff,
      hostSlots:
        config.HOST_CONCURRENCY === 0
          ? undefined
          : redis
            ? // A lease outlives one request's budget (a hop holds its slot at most that long).
              new RedisHostSlots(redis, config.HOST_CONCURRENCY, config.FETCH_TIMEOUT_MS + 10_000)
            : new MemoryHostSlots(config.HOST_CONCURRENCY),
      hostPacer,
      pageValidators: new PageValidatorStore(db),
      pageSamples,
    },
    { enricher, emailVerifier: siteEmailVerifier },
    metrics,
    renderer,
  );
  const storedSites = new StoredSiteReader(new StoredSiteRepository(db), siteIndex, engines);
  const analysis = new AnalysisService(
    db,
    analyzer,
    siteIndex,
    metering,
    callbacks,
    queue,
    credits,
    storedSites,
    {
      allowPrivateTargets: config.ALLOW_PRIVATE_TARGETS,
      allowedPrivateRanges: config.ALLOWED_PRIVATE_RANGES,
      lookup: resolverLookup(config.DNS_SERVERS, config.DNS_TIMEOUT_MS),
    },
  );
  const lookupV2 = new LookupV2Service(analysis, analyzer, storedSites, metering, callbacks);
  const subdomains = buildSubdomainService({ config, db, siteIndex, queue, metering });
  const verification = new EmailVerificationService(emailVerifier, metering);
  const catalogue = new CatalogueService(db, engines, config.CATALOGUE_CACHE_SECONDS);
  const siteImport = new SiteImportService(db, queue);
  const vulnerabilities = new VulnerabilityService(db);
  const exposure = new ExposureService(vulnerabilities.repository, storedSites, metering, engines);
  const lists = new LeadListService(db, queue, callbacks, credits, events, engines, config, plans, exposure);
  // Monitors' vulnerability changes: each batch an import writes enqueues, in its transaction, the
  // job that gives the watched sites it makes affected a change, called back and published like an
  // analysis's.
  const vulnerabilityChanges = new VulnerabilityChangeRecorder(
    db,
    queue,
    exposure,
    engines,
    (m, recorded) => monitors.deliverWithin(m, recorded),
    (recorded) => {
      for (const change of recorded) events.publish(TOPICS.technologyChanged, change);
    },
  );
  vulnerabilities.onRecordsWritten((m, ids) => vulnerabilityChanges.schedule(m, ids));
  const sbom = new SbomService(
    storedSites,
    siteIndex,
    engines,
    metering,
    () => new Date(),
    vulnerabilitiesFromExposure(exposure),
  );
  return {
    config,
    plans,
    db,
    events,
    redis,
    rateLimitClock: systemRateLimitClock,
    queue,
    accounts,
    auth,
    credits,
    quota,
    metering,
    meter,
    myAccount,
    callbacks,
    fingerprints: engines,
    get engine() {
      return engines.current();
    },
    fingerprintPacks: new FingerprintPackService(packRows, engines, events, defaultLayers, {
      operatorAccountIds: config.OPERATOR_ACCOUNT_IDS,
      packsDir: config.FINGERPRINT_PACKS_DIR,
      corrections: config.FINGERPRINTS_CORRECTIONS === 'on',
    }),
    siteIndex,
    analyzer,
    pageSamples,
    renderer,
    analysis,
    subdomains,
    changes,
    monitors,
    siteGraph: new SiteGraphService(db, metering, engines),
    verification,
    catalogue,
    trends: new TrendService(db, engines),
    geoip,
    secrets,
    retention: new RetentionService(db, {
      succeededJobDays: config.JOB_RETENTION_DAYS,
      deadJobDays: config.DEAD_JOB_RETENTION_DAYS,
      deliveredCallbackDays: config.DELIVERY_LOG_RETENTION_DAYS,
      failedCallbackDays: config.FAILED_DELIVERY_RETENTION_DAYS,
      usageChargeDays: config.USAGE_RETENTION_DAYS,
      technologyChangeDays: config.CHANGE_LOG_RETENTION_DAYS,
      batchSize: config.RETENTION_BATCH_SIZE,
    }),
    enricher,
    storedSites,
    vulnerabilities,
    exposure,
    vulnerabilityChanges,
    sbom,
    lookupV2,
    trafficRanks: new TrafficRankService(db),
    siteImport,
    acceptedAnalyses: new AcceptedAnalyses({ db, callbacks, credits, analysis, lookupV2, storedSites }),
    operatorImport: new OperatorImportService(siteImport, {
      operatorAccountIds: config.OPERATOR_ACCOUNT_IDS,
      maxBytes: config.IMPORT_MAX_BYTES,
      urlHosts: config.IMPORT_URL_HOSTS,
      fetch: fetchOptionsOf(config),
    }),
    freshness: new FreshnessService(db, queue, {
      recrawlAfterDays: config.RECRAWL_AFTER_DAYS,
      perRun: config.RECRAWL_PER_MINUTE,
      hostBackoff,
      canPayWatch: (accountId) => monitors.canPayRecrawl(accountId),
    }),
    metrics,
    figures: new OperationalFiguresService(db),
    lists,
    datasets: new DatasetService(
      db,
      queue,
      callbacks,
      lists,
      new DatabasePaymentProvider(config.PAYMENT_CARD_LIMIT),
      events,
      engines,
      config,
    ),
    mailer: new Mailer(config.SMTP_URL, config.MAIL_FROM, logger),
    health: new HealthService(db, config.HEALTH_CHECK_INTERVAL_MS),
  };
}

/** Revoked keys and accounts whose plan changed leave the key cache at once (see AuthService). */
function forgetChangedKeys(events: EventBus, auth: AuthService): void {
  void (async () => {
    for await (const event of events.subscribe(TOPICS.apiKeyRevoked))
      auth.forgetKey((event as ApiKeyRevokedEvent).keyId);
  })();
  void (async () => {
    for await (const event of events.subscribe(TOPICS.planChanged))
      auth.forgetAccount((event as PlanChangedEvent).accountId);
  })();
}
