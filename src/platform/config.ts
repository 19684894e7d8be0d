import { z } from 'zod';
import { loadPlanCatalog } from '../plans/plans-file';
import { LOG_LEVELS } from './logger';
import { parseCidr } from './cidr-range';

/**
 * Every setting of the service, read once from the environment, validated, frozen.
 * The process refuses to start with a message naming each invalid setting (see loadConfig).
 * The README's configuration table mirrors this schema.
 */
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));
const int = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(3000, 0, 65535),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default('sqlite:./data/service.db')
    .refine(
      (v) => /^(sqlite:.+|mysql:\/\/.+|mariadb:\/\/.+)$/.test(v),
      'must be sqlite:PATH or mysql://user:pass@host:port/db',
    ),
  // Deployment (issue 17): migrations run at start-up under a database-wide lock unless an operator
  // runs them as a separate step (`npm run admin -- db:migrate`).
  MIGRATE_ON_START: bool(true),
  MIGRATION_LOCK_TIMEOUT_SECONDS: int(300, 1, 86_400),
  // Encrypts the callback signing secrets at rest (AES-256-GCM): 32 bytes, base64 or 64 hex digits.
  SECRETS_KEY: z
    .string()
    .optional()
    .refine(
      (v) =>
        v === undefined ||
        /^[0-9a-fA-F]{64}$/.test(v.trim()) ||
        (/^[A-Za-z0-9+/_-]{43}=?$/.test(v.trim()) && Buffer.from(v.trim(), 'base64').length === 32),
      'must be 32 bytes as base64 (44 characters) or 64 hex digits; `npm run admin -- secrets:generate-key` prints one',
    ),
  // Retention (issue 17): finished work older than these many days is removed by the worker.
  JOB_RETENTION_DAYS: int(7, 1, 3650),
  DEAD_JOB_RETENTION_DAYS: int(30, 1, 3650),
  DELIVERY_LOG_RETENTION_DAYS: int(30, 1, 3650),
  FAILED_DELIVERY_RETENTION_DAYS: int(90, 1, 3650),
  USAGE_RETENTION_DAYS: int(400, 1, 3650),
  CHANGE_LOG_RETENTION_DAYS: int(400, 1, 36_500),
  RETENTION_BATCH_SIZE: int(500, 1, 10_000),
  RETENTION_INTERVAL_SECONDS: int(3600, 1, 86_400),
  PUBLIC_BASE_URL: z.url().optional(),
  // A reverse proxy in front that sets X-Forwarded-Proto and X-Forwarded-Host: download links are
  // then made from them (when PUBLIC_BASE_URL is unset). Off, a client could name any host.
  TRUST_PROXY: bool(false),
  DEMO_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  DEMO_DAILY_REQUESTS: int(10, 1, 1_000_000),
  PLANS_FILE: z
    .string()
    .optional()
    .superRefine((path, ctx) => {
      try {
        loadPlanCatalog(path);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  KEY_CACHE_SECONDS: int(60, 0, 3600),
  // MySQL/MariaDB: the usage meter sends a batch as one multi-statement script on a connection of
  // its own; off for a server or proxy that refuses multi-statements (each batch is then the exact
  // transaction). Settings no longer read (SQLITE_METER_THREAD) are ignored, as every unknown one is.
  METER_ONE_TRIP: bool(true),
  SQLITE_CACHE_MB: int(64, 2, 4096),
  WORKER_SQLITE_CACHE_MB: int(16, 2, 4096),
  HEADER_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/, 'must be lowercase letters, digits and dashes')
    .default('service'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  REQUEST_BODY_LIMIT_BYTES: int(1_048_576, 1024, 50 * 1_048_576),
  // How long a client may take to send a request, headers and body (issue 34): 408 and closed after.
  REQUEST_TIMEOUT_MS: int(30_000, 100, 600_000),
  ALLOW_PRIVATE_TARGETS: bool(false),
  // Private ranges (CIDR, comma-separated, e.g. 127.0.0.0/8) outbound requests may reach while
  // every other private, loopback and link-local range stays refused: a local test web, an intranet.
  ALLOWED_PRIVATE_RANGES: list.superRefine((ranges, ctx) => {
    for (const range of ranges) {
      const parsed = parseCidr(range);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
    }
  }),
  DNS_SERVERS: list,
  DNS_TIMEOUT_MS: int(3000, 100, 30_000),
  EMBEDDED_WORKER: bool(true),
  // Several processes (issue 10): with REDIS_URL, rate limits, events (subscriptions) and job
  // wake-ups go through Redis; more than one API process needs it. Keys start with the prefix.
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'must be redis://[user:pass@]host:port[/db] or rediss://...')
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1 to 64 letters, digits or : _ . -')
    .default('tis:'),
  WORKER_CONCURRENCY: int(4, 1, 64),
  // A worker logs the CPU its analyses spent by stage (parse, detect, enrich, the rest) this often,
  // as running totals ("stage cpu"), and once more when it stops; 0: only when it stops.
  STAGE_CPU_LOG_SECONDS: int(0, 0, 86_400),
  // Callback deliveries run in slots of their own (the express lane), never behind queued crawls.
  CALLBACK_WORKER_CONCURRENCY: int(2, 1, 64),
  // Background crawls (site.index: imports, discovery, freshness) run in slots of their own: they
  // wait on remote sites, so a few slow ones must not hold the slots that set the crawl rate.
  CRAWL_WORKER_CONCURRENCY: int(16, 1, 256),
  JOB_LEASE_SECONDS: int(60, 2, 3600),
  JOB_POLL_INTERVAL_MS: int(500, 10, 60_000),
  JOB_MAX_ATTEMPTS: int(8, 1, 100),
  CALLBACK_TIMEOUT_MS: int(10_000, 100, 300_000),
  CALLBACK_RETRY_HOURS: int(24, 1, 168),
  // secret:create: how long a replaced signing secret keeps signing callbacks beside the new one (0: not at all).
  SIGNING_SECRET_GRACE_HOURS: int(24, 0, 720),
  SHUTDOWN_GRACE_MS: int(10_000, 0, 300_000),
  // /healthz and /readyz check the database (a read, a no-op write) at most this often; 0: per request.
  HEALTH_CHECK_INTERVAL_MS: int(2000, 0, 300_000),
  FINGERPRINTS_PATH: z.string().optional(),
  // Page samples (the front page of up to this many sites) that fingerprints:diff re-runs to flag
  // a rule change before it breaks a trend; 0 stores none.
  PAGE_SAMPLES_MAX: int(20_000, 0, 10_000_000),
  // How often each process reads which fingerprint set is active (a Redis notice is at once).
  FINGERPRINTS_POLL_SECONDS: int(5, 0, 3600),
  // The directory the loadFingerprintPack mutation reads packs from (paths relative to it); unset: off.
  FINGERPRINT_PACKS_DIR: z.string().optional(),
  // Our corrections pack (data/fingerprints/corrections) laid over FINGERPRINTS_PATH or the bundled
  // data; off: the upstream fingerprints alone.
  FINGERPRINTS_CORRECTIONS: z.enum(['on', 'off']).default('on'),
  // GeoIP of the addresses sites answer on (issue 9): the bundled DB-IP Lite country database
  // unless an operator (or a test) points at another MMDB file, e.g. a city database with regions.
  GEOIP_DATABASE_PATH: z.string().optional(),
  // The public catalogue (GET /v2/technologies/, /v2/categories/): no key, limited per client IP.
  PUBLIC_RATE_LIMIT_PER_MINUTE: int(60, 1, 100_000),
  CATALOGUE_CACHE_SECONDS: int(300, 0, 86_400),
  // Enrichment (GET /v2/lookup/ sets): background crawls verify the addresses a site lists
  // (verifiedEmail, safeEmail) through the email verifier; false never opens an SMTP connection.
  ENRICH_VERIFY_EMAILS: bool(true),
  // Observed traffic ranks (sites by recorded page views) are recomputed by the worker this often; 0: only at start.
  TRAFFIC_RANK_REFRESH_MINUTES: int(60, 0, 10_080),
  // Freshness: the worker re-analyses sites last analysed longer ago than this (0: never), most-trafficked first.
  RECRAWL_AFTER_DAYS: int(30, 0, 3650),
  RECRAWL_PER_MINUTE: int(10, 0, 10_000),
  // Operators: accounts whose keys may call operator mutations (importSites); none by default.
  OPERATOR_ACCOUNT_IDS: list,
  // importSites: the largest list accepted, as a body string or downloaded from a URL (bytes).
  IMPORT_MAX_BYTES: int(64 * 1_048_576, 1024, 1024 * 1_048_576),
  // importSites: host names a list may be downloaded from (exact names); empty turns URL imports off.
  IMPORT_URL_HOSTS: list,
  // Presented API keys that fail, per client address per minute, before every key from it is refused.
  AUTH_FAILURES_PER_MINUTE: int(20, 1, 100_000),
  // How often each process reads key_revocations even unprompted (and re-checks the keys of its
  // open WebSocket sessions): the bound for a revocation no request, event or notice made it see.
  WS_KEY_RECHECK_MS: int(2000, 50, 600_000),
  // Open WebSocket sessions per API key and per client address in one process (issue 34): past
  // them a new connection is closed with 1008 and a reason naming the cap.
  WS_MAX_SESSIONS_PER_KEY: int(20, 1, 100_000),
  WS_MAX_SESSIONS_PER_ADDRESS: int(50, 1, 100_000),
  // GraphQL documents are bounded before parsing grows with them (tokens) and before execution
  // (aliases, depth, directives, cost): one request must not stall the process (issue 14 item 7).
  GRAPHQL_MAX_TOKENS: int(5000, 100, 1_000_000),
  GRAPHQL_MAX_ALIASES: int(15, 0, 10_000),
  GRAPHQL_MAX_DEPTH: int(10, 1, 100),
  GRAPHQL_MAX_DIRECTIVES: int(50, 0, 10_000),
  GRAPHQL_MAX_COST: int(5000, 1, 1_000_000),
  // Validation's own work is bounded before any rule runs (issue 34): operations per document, and
  // the comparisons needed to merge a field selected several times at one place of the result.
  GRAPHQL_MAX_OPERATIONS: int(20, 1, 1000),
  GRAPHQL_MAX_FIELD_MERGES: int(1000, 0, 1_000_000),
  FETCH_USER_AGENT: z.string().min(1).max(300).default('Mozilla/5.0 (compatible; TechIntelBot/1.0)'),
  FETCH_TIMEOUT_MS: int(20_000, 500, 120_000),
  FETCH_CONNECT_TIMEOUT_MS: int(10_000, 200, 60_000),
  FETCH_MAX_BODY_BYTES: int(5 * 1_048_576, 65_536, 50 * 1_048_576),
  FETCH_MAX_REDIRECTS: int(5, 0, 20),
  FETCH_MAX_SCRIPTS: int(10, 0, 50),
  FETCH_MAX_SCRIPT_BYTES: int(524_288, 1024, 5 * 1_048_576),
  FETCH_MAX_STYLESHEETS: int(5, 0, 50),
  FETCH_TLS_VERIFY: bool(false),
  CRAWL_MAX_PAGES: int(25, 1, 25),
  CRAWL_CONCURRENCY_PER_HOST: int(2, 1, 16),
  // Requests in flight per host across every crawl of the process (of every worker with REDIS_URL); 0: no bound.
  HOST_CONCURRENCY: int(4, 0, 256),
  // Requests per host in any one-second window (of every worker with REDIS_URL, per process
  // otherwise); 0: no bound. A small site's few requests go at once; a larger crawl is held to it.
  HOST_REQUESTS_PER_SECOND: int(10, 0, 1000),
  // The most seconds of a robots.txt Crawl-delay honoured (a crawl's pages then one at a time, that
  // far apart); a longer delay is cut to it; 0 ignores Crawl-delay.
  ROBOTS_CRAWL_DELAY_MAX_SECONDS: int(10, 0, 60),
  CRAWL_DEADLINE_MS: int(90_000, 1000, 600_000),
  // Browser rendering (issue 13): js/xhr/live-DOM fingerprints through Debian's headless Chromium.
  RENDER: z.enum(['off', 'auto', 'always']).default('auto'),
  BROWSER_EXECUTABLE: z.string().optional(),
  BROWSER_CONCURRENCY: int(2, 1, 32),
  BROWSER_PAGE_TIMEOUT_MS: int(10_000, 1000, 60_000),
  BROWSER_SETTLE_MS: int(1500, 0, 30_000),
  BROWSER_RECYCLE_PAGES: int(50, 1, 100_000),
  BROWSER_MEMORY_MB: int(1024, 128, 65_536),
  // Subdomain finder (issue 6). Active discovery and zone transfers send many queries to the
  // domain's own name servers, so they are opt-in; the inline pass stays well inside the 10 s limit.
  SUBDOMAIN_ACTIVE_DISCOVERY: bool(false),
  SUBDOMAIN_ZONE_TRANSFER: bool(false),
  SUBDOMAIN_ZONE_TRANSFER_PORT: int(53, 1, 65535),
  SUBDOMAIN_INLINE_DNS_BUDGET_MS: int(5000, 100, 9000),
  SUBDOMAIN_DNS_QUERY_TIMEOUT_MS: int(2000, 50, 30_000),
  SUBDOMAIN_DNS_TRIES: int(2, 1, 5),
  SUBDOMAIN_DISCOVERY_CONCURRENCY: int(10, 1, 200),
  SUBDOMAIN_DISCOVERY_BUDGET_MS: int(120_000, 1000, 3_600_000),
  SUBDOMAIN_WILDCARD_PROBES: int(3, 1, 10),
  // Email verification (issue 5). The SMTP probe speaks to other people's mail servers: the HELO
  // name and MAIL FROM should belong to the operator (forward-confirmed reverse DNS), and outbound
  // port 25 must be open. The overall bound stays under the spec's 30 s request timeout.
  VERIFY_SMTP_PORT: int(25, 1, 65535),
  VERIFY_HELO_NAME: z
    .string()
    .max(253)
    .regex(
      /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
      'must be a host name',
    )
    .optional(),
  VERIFY_MAIL_FROM: z
    .string()
    .max(254)
    .regex(/^[^\s@<>]+@[^\s@<>]+$/, 'must be an address like verify@example.com')
    .optional(),
  VERIFY_CONNECT_TIMEOUT_MS: int(5000, 100, 29_000),
  VERIFY_REPLY_TIMEOUT_MS: int(10_000, 100, 29_000),
  VERIFY_TIMEOUT_MS: int(25_000, 500, 29_000),
  VERIFY_MAX_MX_HOSTS: int(3, 1, 10),
  VERIFY_CACHE_TTL_SECONDS: int(86_400, 0, 30 * 86_400),
  VERIFY_CACHE_UNKNOWN_TTL_SECONDS: int(300, 0, 86_400),
  VERIFY_CACHE_MAX_ENTRIES: int(10_000, 1, 10_000_000),
  VERIFY_DOMAIN_CONCURRENCY: int(2, 1, 50),
  VERIFY_DOMAIN_INTERVAL_MS: int(500, 0, 60_000),
  // Operator pages (issue 15). /metrics is served only when a token is set (Bearer auth);
  // the API reference (/docs) and the GraphQL explorer (GET /graphql in a browser) are on by default.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  DOCS_ENABLED: bool(true),
  GRAPHQL_EXPLORER_ENABLED: bool(true),
  // What a caller without a key may see of the schema: `key` (default) answers introspection only
  // to valid keys, `public` to anyone, `off` to nobody (the explorer then shows no docs).
  GRAPHQL_INTROSPECTION: z.enum(['key', 'public', 'off']).default('key'),
  SECURITY_HEADERS_ENABLED: bool(true),
  // Browser pages on these other origins may call the API (CORS); none by default, `*` for any.
  CORS_ORIGINS: list.superRefine((origins, ctx) => {
    for (const origin of origins) {
      if (origin === '*' || isOrigin(origin)) continue;
      ctx.addIssue({
        code: 'custom',
        message: `"${origin}" is not an origin: scheme://host[:port] with no path (https://dash.example.com), or *`,
      });
    }
  }),
  // Lead lists (POST /v2/lists, issue 11): files, signed download links, limits per account.
  LISTS_DIR: z.string().min(1).default('./data/lists'),
  LISTS_URL_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  LISTS_URL_TTL_SECONDS: int(86_400, 60, 30 * 86_400),
  LISTS_DAILY_LIMIT: int(25, 1, 100_000),
  LISTS_CONCURRENT_LIMIT: int(3, 1, 1000),
  LISTS_MIN_WEBSITES: int(1, 0, 1_000_000),
  LISTS_SAMPLE_ROWS: int(10, 1, 1000),
  LISTS_JOB_ATTEMPTS: int(3, 1, 20),
  // Datasets (POST /dataset/v1/, issue 12): the price of each record (website) and its currency.
  DATASET_PRICE_PER_RECORD: z.coerce.number().min(0).max(1000).default(0.05),
  DATASET_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
    .default('USD'),
  // The database payment provider declines a charge above this amount (a card's limit); unset: none.
  PAYMENT_CARD_LIMIT: z.coerce.number().min(0).optional(),
  // Transactional emails (order confirmation, receipt, invoice): an SMTP relay such as
  // smtp://user:pass@host:587; unset, they are written to the log instead.
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/.+/, 'must be smtp://… or smtps://…')
    .optional(),
  MAIL_FROM: z.string().min(3).default('orders@localhost'),
});

/** `https://host[:port]` exactly as a browser sends it in Origin: no path, no trailing slash. */
function isOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text;
  } catch {
    return false;
  }
}

export type Config = Readonly<z.output<typeof schema>>;

export class ConfigError extends Error {}

/** Validates the environment; throws ConfigError listing every invalid setting by name. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    picked[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(parsed.data);
}

/** The documented settings, for the README table and tests. */
export const SETTING_NAMES = Object.keys(schema.shape) as (keyof Config)[];
