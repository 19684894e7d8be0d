import { loadConfig } from '../../src/platform/config';
import { logger } from '../../src/platform/logger';
import { RunningService, startService } from '../../src/service-runtime';
import { TestClock } from './test-clock';
import { createTestDatabase, TestDatabase } from './test-database';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestService {
  url: string;
  running: RunningService;
  /** The clock of the service's per-key rate limits: a test moves it instead of waiting out a window. */
  clock: TestClock;
  /** Creates an account through the same service the admin CLI uses; returns its plaintext key. */
  createAccount(input?: {
    plan?: string;
    credits?: number;
    name?: string;
  }): Promise<{ accountId: number; apiKey: string }>;
  /** The account's credit balance as stored. */
  balance(accountId: number): Promise<number>;
  /** An HTTP request to the service; `key` goes in x-api-key. */
  request<T = any>(
    path: string,
    init?: { key?: string; method?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  /** GraphQL over HTTP POST /graphql. */
  graphql<T = any>(
    key: string | undefined,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<HttpResult<T>>;
  stop(): Promise<void>;
}

/**
 * fetch, once more when a GET or HEAD fails on a kept-alive connection the server closed: a test
 * that blocks this process for seconds (validating thousands of items against the contract) lets
 * the server's keep-alive timer run out while the client still holds the idle connection, and the
 * next request sent on it is reset. HTTP clients retry idempotent requests so (RFC 9110, 9.2.2).
 */
async function fetchAgainIfReset(url: string, init: RequestInit & { method: string }): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    const reset = code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
    if (!reset || (init.method !== 'GET' && init.method !== 'HEAD')) throw error;
    return fetch(url, init);
  }
}

/**
 * The service's last error logs. Tests run it silent (pino's level is only set by src/main.ts), so
 * an unexpected 500 would say nothing of its cause: the error is kept here and printed with the
 * answer that carried it.
 */
const recentErrors: unknown[] = [];
const logError = logger.error.bind(logger);
logger.error = ((...args: Parameters<typeof logger.error>) => {
  recentErrors.push(args[0]);
  if (recentErrors.length > 10) recentErrors.shift();
  return logError(...args);
}) as typeof logger.error;

function reportServerError(method: string, path: string, status: number, text: string): void {
  const errors = recentErrors.splice(0).map((entry) => {
    const err = (entry as { err?: unknown } | undefined)?.err;
    return err instanceof Error ? (err.stack ?? err.message) : JSON.stringify(entry);
  });
  console.error(`${method} ${path} answered ${status}: ${text}\nlogged: ${errors.join('\n') || 'nothing'}`);
}

/**
 * Starts the real service on an ephemeral port over a fresh database (SQLite, or MariaDB when
 * TEST_DATABASE_URL is set). Private targets are allowed so tests can use loopback sites.
 */
export async function startTestService(settings: Record<string, string> = {}): Promise<TestService> {
  const database: TestDatabase = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    DATABASE_URL: database.url,
    ALLOW_PRIVATE_TARGETS: 'true',
    SHUTDOWN_GRACE_MS: '2000',
    // The browser is opted into by the tests about it (test/integration/browser), not started by all.
    RENDER: 'off',
    // Crawls of the loopback test sites are not paced (test/integration/scale/host-pacing.test.ts
    // covers the bound), so tests written before it take the time they took.
    HOST_REQUESTS_PER_SECOND: '0',
    ...settings,
  });
  const running = await startService(config);
  const clock = new TestClock();
  running.services.rateLimitClock = clock;
  let counter = 0;

  const request: TestService['request'] = async (path, init = {}) => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (init.key !== undefined) headers['x-api-key'] = init.key;
    let body: string | undefined;
    if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetchAgainIfReset(running.url + path, {
      method: init.method ?? 'GET',
      headers,
      body,
    });
    const text = await response.text();
    if (response.status === 500) reportServerError(init.method ?? 'GET', path, response.status, text);
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  };

  return {
    url: running.url,
    running,
    clock,
    async createAccount(input = {}) {
      const created = await running.services.accounts.createAccount({
        name: input.name ?? `Test ${++counter}`,
        email: `user${counter}@example.com`,
        plan: input.plan ?? 'small',
        credits: input.credits ?? 100,
      });
      return { accountId: created.accountId, apiKey: created.apiKey };
    },
    async balance(accountId) {
      const rows = await running.services.db.query<{ credits: number }[]>(
        'SELECT credits FROM accounts WHERE id = ?',
        [accountId],
      );
      return Number(rows[0].credits);
    },
    request,
    graphql: (key, query, variables) =>
      request('/graphql', { key, method: 'POST', body: { query, variables } }),
    async stop() {
      await running.stop();
      await database.drop();
    },
  };
}
