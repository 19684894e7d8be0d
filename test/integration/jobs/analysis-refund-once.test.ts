import { createServer } from 'node:net';
import { logger } from '../../../src/platform/logger';
import type { JobContext } from '../../../src/jobs';
import type { AnalysisJobPayload } from '../../../src/services/analysis/analysis.service';
import { createAnalysisHandler } from '../../../src/workers/analysis.worker';
import { startTestService, TestService } from '../../helpers/test-service';

/** A loopback port nobody listens on: the analysis of a site there fails entirely. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the refund of a failed analysis job happens once per job', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ EMBEDDED_WORKER: 'false' });
  });
  afterAll(() => service.stop());

  const refundRows = (accountId: number) =>
    service.running.services.db.query(
      "SELECT delta, idempotency_key FROM credit_ledger WHERE account_id = ? AND kind = 'refund'",
      [accountId],
    ) as Promise<{ delta: number; idempotency_key: string }[]>;

  it('refunds once when the same job runs again, also when two runs race', async () => {
    const { accountId } = await service.createAccount({ credits: 10 });
    const handler = createAnalysisHandler(service.running.services);
    const payload: AnalysisJobPayload = {
      accountId,
      requestId: 'refund-once',
      url: `http://127.0.0.1:${await closedPort()}/`,
      form: 'crawl-v1',
      recursive: false,
      sets: [],
      callbackUrl: 'http://127.0.0.1:9/callback',
      charged: 5,
    };
    const context = (attempt: number): JobContext => ({
      jobId: 4242,
      kind: 'analysis',
      attempt,
      maxAttempts: 8,
      signal: new AbortController().signal,
      logger,
    });

    await handler(payload, context(1));
    // Two more runs at once (a lease expired while the first still ran): one may fail on the
    // unique key and roll back, neither may refund again.
    await Promise.allSettled([handler(payload, context(2)), handler(payload, context(3))]);
    await handler(payload, context(4));

    expect(await refundRows(accountId)).toEqual([{ delta: 5, idempotency_key: 'job:4242' }]);
    expect(await service.running.services.credits.balance(accountId)).toBe(15);
  });
});
