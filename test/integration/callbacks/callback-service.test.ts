import { AccountEntity } from '../../../src/storage/entities/account.entity';
import { TargetForbiddenError, ValidationError } from '../../../src/errors';
import { JobContext, JobQueue, nominalDelayMs, PermanentJobError } from '../../../src/jobs';
import { logger } from '../../../src/platform/logger';
import { CallbackService, DEFAULT_CALLBACK_RETRY } from '../../../src/services/platform/callback.service';
import { createCallbackDeliveryHandler } from '../../../src/workers/callback-delivery.worker';
import { createCallbackHttpClient } from '../../../src/workers/callback-http-client';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { openTestDatabase, OpenedTestDatabase } from '../jobs/job-test-kit';

const DAY_MS = 24 * 3_600_000;

describe('CallbackService', () => {
  let test: OpenedTestDatabase;
  let queue: JobQueue;
  let callbacks: CallbackService;
  let receiver: CallbackReceiver;
  let accountId: number;
  let otherAccountId: number;

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db);
    // Private targets refused, as in production; no runner: jobs only run when a test runs them.
    callbacks = new CallbackService(test.db, queue, { retryWindowMs: DAY_MS, allowPrivateTargets: false });
    receiver = await startCallbackReceiver();
    [accountId, otherAccountId] = await test.db.transaction(async (m) => {
      const created = await m.save(AccountEntity, [account('one'), account('two')]);
      return created.map((row) => row.id);
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await test?.close();
  });

  it('keeps retrying for at least 24 hours with the default schedule', () => {
    let waited = 0;
    for (let attempt = 1; attempt < callbacks.maxAttempts; attempt++) {
      waited += nominalDelayMs(DEFAULT_CALLBACK_RETRY, attempt);
      expect(callbacks.retryDelayMs(attempt)).toBeGreaterThanOrEqual(
        nominalDelayMs(DEFAULT_CALLBACK_RETRY, attempt),
      );
    }
    expect(waited).toBeGreaterThanOrEqual(DAY_MS);
    // ...and not absurdly longer: dropping one attempt would fall short of the window.
    expect(waited - nominalDelayMs(DEFAULT_CALLBACK_RETRY, callbacks.maxAttempts - 1)).toBeLessThan(DAY_MS);
  });

  it('accepts only http(s) URLs without credentials, up to 2048 characters, on public addresses', async () => {
    await expect(callbacks.validateUrl('ftp://example.com/hook')).rejects.toBeInstanceOf(ValidationError);
    await expect(callbacks.validateUrl('https://user:pw@example.com/hook')).rejects.toThrow(/credentials/);
    await expect(callbacks.validateUrl(`https://example.com/${'a'.repeat(2048)}`)).rejects.toThrow(/2048/);
    await expect(callbacks.validateUrl('not a url')).rejects.toThrow(/callback_url/);
    await expect(callbacks.validateUrl('http://127.0.0.1:8080/hook')).rejects.toBeInstanceOf(
      TargetForbiddenError,
    );
    await expect(callbacks.validateUrl('http://169.254.169.254/latest')).rejects.toBeInstanceOf(
      TargetForbiddenError,
    );
    await expect(callbacks.validateUrl('http://[::1]/hook')).rejects.toBeInstanceOf(TargetForbiddenError);
    const publicLookup = new CallbackService(test.db, queue, {
      retryWindowMs: DAY_MS,
      allowPrivateTargets: false,
      lookup: async () => ['93.184.215.14'],
    });
    await expect(publicLookup.validateUrl('https://hooks.example.com/x')).resolves.toBe(
      'https://hooks.example.com/x',
    );
    await expect(
      test.db.transaction((m) =>
        callbacks.schedule(m, { accountId, url: 'javascript:alert(1)', event: 'list.ready', payload: {} }),
      ),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('fails a delivery at once when the guard refuses the connected address', async () => {
    const http = createCallbackHttpClient({ timeoutMs: 1_000, allowPrivateTargets: false });
    try {
      const handler = createCallbackDeliveryHandler(callbacks, { headerPrefix: 'service', post: http.post });
      // A name that resolves to loopback at connect time: only the guarded dispatcher can catch it.
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const scheduled = await test.db.transaction((m) =>
        callbacks.schedule(m, { accountId, url, event: 'list.ready', payload: { id: 'x' } }),
      );
      await expect(handler({ deliveryId: scheduled.id }, context())).rejects.toBeInstanceOf(
        PermanentJobError,
      );
      const delivery = await callbacks.get(accountId, scheduled.id);
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastStatusCode: null,
        nextAttemptAt: null,
      });
      expect(delivery.lastError).toMatch(/localhost resolves to .*loopback/);
      expect(receiver.received).toHaveLength(0);
    } finally {
      await http.close();
    }
  });

  it('lists an account’s deliveries newest first, page by page', async () => {
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const scheduled = await test.db.transaction((m) =>
        callbacks.schedule(m, {
          accountId: otherAccountId,
          url: 'https://example.com/hook',
          event: 'e',
          payload: { n },
        }),
      );
      ids.push(scheduled.id);
    }
    const first = await callbacks.list(otherAccountId, { limit: 2 });
    expect(first.deliveries.map((delivery) => JSON.parse(delivery.body))).toEqual([{ n: 2 }, { n: 1 }]);
    expect(first.nextBefore).toBe(ids[1]);
    const second = await callbacks.list(otherAccountId, { limit: 2, before: first.nextBefore! });
    expect(second.deliveries.map((delivery) => delivery.id)).toEqual([ids[0]]);
    expect(second.nextBefore).toBeNull();
    expect((await callbacks.list(accountId)).deliveries.some((delivery) => ids.includes(delivery.id))).toBe(
      false,
    );
    await expect(callbacks.get(accountId, ids[0])).rejects.toThrow(/not found/);
  });

  function context(): JobContext {
    return {
      jobId: 0,
      kind: 'callback.deliver',
      attempt: 1,
      maxAttempts: callbacks.maxAttempts,
      signal: new AbortController().signal,
      logger,
    };
  }
});

function account(name: string): Partial<AccountEntity> {
  return {
    name,
    email: `${name}@example.com`,
    plan: 'business',
    credits: 0,
    signingSecret: null,
    isDemo: false,
    createdAt: new Date(),
  };
}
