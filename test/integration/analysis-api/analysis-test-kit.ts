import { startCallbackReceiver, CallbackReceiver } from '../../helpers/callback-receiver';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { jobsSettled } from '../../helpers/jobs-settled';
import { untilNotRateLimited } from '../../helpers/test-retry';
import { startTestSites, TestSites } from '../../helpers/test-sites';
import { HttpResult, startTestService, TestService } from '../../helpers/test-service';

/** Settings that keep the analysis tests fast: short fetch timeouts, a quick job poll, small crawls. */
export const FAST_SETTINGS: Record<string, string> = {
  FETCH_TIMEOUT_MS: '1500',
  FETCH_CONNECT_TIMEOUT_MS: '1000',
  CRAWL_DEADLINE_MS: '20000',
  JOB_POLL_INTERVAL_MS: '50',
  CALLBACK_TIMEOUT_MS: '2000',
  DNS_TIMEOUT_MS: '300',
  // No resolver answers here: DNS facts of 127.0.0.1 sites fail fast instead of waiting on the system's.
  DNS_SERVERS: '127.0.0.1:9',
};

export interface AnalysisKit {
  service: TestService;
  sites: TestSites;
  contract: OpenApiDocument;
  /** GET through the REST facade; the answer is checked against the served OpenAPI document. */
  get<T = any>(path: string, key: string): Promise<HttpResult<T>>;
  /** Like get, but waits out a 429 (tests that need several requests in a 1/s family). */
  getPatiently<T = any>(path: string, key: string): Promise<HttpResult<T>>;
  /** A callback receiver that verifies signatures with a fresh signing secret of the account. */
  receiverFor(accountId: number): Promise<CallbackReceiver>;
  ledger(
    accountId: number,
  ): Promise<{ delta: number; balance_after: number; kind: string; reason: string }[]>;
  balance(accountId: number): Promise<number>;
  /** plan.quota.remaining of the analyze family (the usage request itself counts one). */
  quotaRemaining(key: string): Promise<number>;
  /** Waits until no analysis or callback job of the service is pending or running. */
  jobsSettled(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startAnalysisKit(settings: Record<string, string> = {}): Promise<AnalysisKit> {
  const sites = await startTestSites();
  const service = await startTestService({ ...FAST_SETTINGS, ...settings });
  const contract = await fetchOpenApiDocument(service.url);
  const receivers: CallbackReceiver[] = [];
  const { db } = service.running.services;

  const get = async <T>(path: string, key: string): Promise<HttpResult<T>> => {
    const res = await service.request<T>(path, { key });
    expectMatchesContract(contract, 'GET', path, res.status, res.body, res.headers);
    return res;
  };

  return {
    service,
    sites,
    contract,
    get,
    getPatiently: (path, key) => untilNotRateLimited(service, () => get(path, key), 8),
    async receiverFor(accountId) {
      const secret = (await service.running.services.accounts.createSigningSecret(accountId)).secret;
      const receiver = await startCallbackReceiver({ secret });
      receivers.push(receiver);
      return receiver;
    },
    ledger: (accountId) =>
      db.query(
        'SELECT delta, balance_after, kind, reason FROM credit_ledger WHERE account_id = ? ORDER BY id',
        [accountId],
      ),
    balance: (accountId) => service.balance(accountId),
    async quotaRemaining(key) {
      const res = await untilNotRateLimited(service, () => service.request('/analyze/v1/usage', { key }));
      if (res.status !== 200) throw new Error(`usage answered ${res.status}: ${res.text}`);
      return res.body.plan.quota.remaining;
    },
    jobsSettled: (timeoutMs) => jobsSettled(service, timeoutMs),
    async close() {
      await Promise.all(receivers.map((r) => r.close()));
      await service.stop();
      await sites.close();
    },
  };
}

/** The credit headers of a response, as numbers. */
export function creditHeaders(res: HttpResult): { spent: number; remaining: number } {
  return {
    spent: Number(res.headers.get('service-credits-spent')),
    remaining: Number(res.headers.get('service-credits-remaining')),
  };
}

export const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
