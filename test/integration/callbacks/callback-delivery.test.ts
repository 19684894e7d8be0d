import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccountEntity } from '../../../src/storage/entities/account.entity';
import { CallbackDeliveryEntity } from '../../../src/storage/entities/callback-delivery.entity';
import { JobHandlerRegistry, JobKinds, JobQueue, JobRunner } from '../../../src/jobs';
import { CallbackService } from '../../../src/services/platform/callback.service';
import { callbackSignature } from '../../../src/services/platform/webhook-signatures';
import { CallbackHttpClient, createCallbackHttpClient } from '../../../src/workers/callback-http-client';
import { createCallbackDeliveryHandler } from '../../../src/workers/callback-delivery.worker';
import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { openTestDatabase, OpenedTestDatabase, testRunnerOptions } from '../jobs/job-test-kit';

const SECRET = 'whsec_test_0123456789abcdef';
const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as {
  version: string;
};

describe('signed callback delivery', () => {
  let test: OpenedTestDatabase;
  let callbacks: CallbackService;
  let queue: JobQueue;
  let http: CallbackHttpClient;
  let runner: JobRunner;
  let receiver: CallbackReceiver;
  let signedAccount: number;
  let unsignedAccount: number;

  beforeAll(async () => {
    test = await openTestDatabase();
    queue = new JobQueue(test.db);
    // Waits of 20, 40, 80, 80 ms span the 200 ms window: five attempts.
    callbacks = new CallbackService(test.db, queue, {
      retryWindowMs: 200,
      retry: { baseMs: 20, capMs: 80, jitter: 0 },
      allowPrivateTargets: true,
    });
    http = createCallbackHttpClient({ timeoutMs: 300, allowPrivateTargets: true });
    const registry = new JobHandlerRegistry().register(
      JobKinds.callbackDelivery,
      createCallbackDeliveryHandler(callbacks, { headerPrefix: 'service', post: http.post }),
    );
    runner = new JobRunner(queue, registry, testRunnerOptions(registry.kinds(), { concurrency: 4 }));
    runner.start();
    receiver = await startCallbackReceiver({ secret: SECRET });
    [signedAccount, unsignedAccount] = await test.db.transaction(async (m) => {
      const signed = await m.save(AccountEntity, account('signed', SECRET));
      const unsigned = await m.save(AccountEntity, account('unsigned', null));
      return [signed.id, unsigned.id];
    });
  });

  afterAll(async () => {
    await runner?.stop();
    await http?.close();
    await receiver?.close();
    await test?.close();
  });

  beforeEach(() => {
    receiver.received.length = 0;
    receiver.reply(200);
  });

  const schedule = (accountId: number, payload: unknown, url = receiver.url) =>
    test.db.transaction((m) => callbacks.schedule(m, { accountId, url, event: 'list.ready', payload }));

  const settled = (accountId: number, id: string, status: CallbackDeliveryEntity['status']) =>
    eventually(async () => {
      const delivery = await callbacks.get(accountId, id);
      return delivery.status === status && delivery;
    }, `delivery ${status}`);

  it('POSTs the JSON body signed with sha256(secret + body) and the delivery headers', async () => {
    const payload = { id: 'list-1', status: 'Ready', rows: { WordPress: 3 }, note: 'Grüße "quoted"' };
    const scheduled = await schedule(signedAccount, payload);
    const [request] = await receiver.waitFor(1);

    expect(request.method).toBe('POST');
    expect(request.path).toBe('/callback');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe(`technology-intelligence-service/${version}`);
    expect(request.body).toBe(scheduled.body);
    expect(JSON.parse(request.body)).toEqual(payload);
    expect(request.headers['service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(request.headers['service-signature']).toBe(callbackSignature(SECRET, request.body));
    expect(request.signatureValid).toBe(true);
    expect(request.headers['service-delivery-id']).toBe(scheduled.id);
    expect(request.headers['service-event']).toBe('list.ready');

    const delivered = await settled(signedAccount, scheduled.id, 'delivered');
    expect(delivered).toMatchObject({
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(delivered.deliveredAt).not.toBeNull();
  });

  it('sends no signature header when the account has no secret', async () => {
    const scheduled = await schedule(unsignedAccount, { id: 'list-2' });
    const [request] = await receiver.waitFor(1);
    expect(request.headers['service-signature']).toBeUndefined();
    expect(request.headers['service-delivery-id']).toBe(scheduled.id);
    await settled(unsignedAccount, scheduled.id, 'delivered');
  });

  it('does not send a callback whose transaction rolled back', async () => {
    await expect(
      test.db.transaction(async (m) => {
        await callbacks.schedule(m, {
          accountId: signedAccount,
          url: receiver.url,
          event: 'list.ready',
          payload: {},
        });
        throw new Error('the list update failed');
      }),
    ).rejects.toThrow('the list update failed');
    const marker = await schedule(signedAccount, { marker: true });
    await settled(signedAccount, marker.id, 'delivered');
    expect(receiver.received.map((request) => JSON.parse(request.body))).toEqual([{ marker: true }]);
  });

  it('retries with the same signed body after failures until the receiver accepts it', async () => {
    receiver.reply((_request, index) => (index < 2 ? 500 : 204));
    const scheduled = await schedule(signedAccount, { id: 'list-3' });
    const delivered = await settled(signedAccount, scheduled.id, 'delivered');
    expect(delivered).toMatchObject({ attempts: 3, lastStatusCode: 204, lastError: null });
    expect(receiver.received).toHaveLength(3);
    for (const request of receiver.received) {
      expect(request.body).toBe(scheduled.body);
      expect(request.signatureValid).toBe(true);
      expect(request.headers['service-delivery-id']).toBe(scheduled.id);
    }
  });

  it('fails a delivery once the retry schedule is used up, and redelivers it on request', async () => {
    receiver.reply(503);
    const scheduled = await schedule(signedAccount, { id: 'list-4' });
    const failed = await settled(signedAccount, scheduled.id, 'failed');
    expect(callbacks.maxAttempts).toBe(5);
    expect(failed).toMatchObject({ attempts: 5, lastStatusCode: 503, nextAttemptAt: null });
    expect(failed.lastError).toMatch(/HTTP 503/);
    expect(receiver.received).toHaveLength(5);
    const job = await queue.findByUniqueKey(`callback:${scheduled.id}`);
    await eventually(async () => (await queue.get(job!.id))?.status === 'dead', 'delivery job dead');

    receiver.reply(200);
    const again = await callbacks.redeliver(signedAccount, scheduled.id);
    expect(again.status).toBe('pending');
    const delivered = await settled(signedAccount, scheduled.id, 'delivered');
    expect(delivered).toMatchObject({ attempts: 6, lastStatusCode: 200 });
    expect(receiver.received[5].body).toBe(scheduled.body);
    expect(receiver.received[5].signatureValid).toBe(true);
  });

  it('sends a delivered callback again on redelivery', async () => {
    const scheduled = await schedule(signedAccount, { id: 'list-5' });
    await settled(signedAccount, scheduled.id, 'delivered');
    await callbacks.redeliver(signedAccount, scheduled.id);
    await receiver.waitFor(2);
    const delivered = await settled(signedAccount, scheduled.id, 'delivered');
    expect(delivered.attempts).toBe(2);
    await expect(callbacks.redeliver(unsignedAccount, scheduled.id)).rejects.toThrow(/not found/);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    receiver.reply((request) =>
      request.path === '/callback'
        ? { status: 302, headers: { location: receiver.urlFor('/elsewhere') } }
        : 200,
    );
    const scheduled = await schedule(signedAccount, { id: 'list-6' });
    const attempted = await eventually(async () => {
      const delivery = await callbacks.get(signedAccount, scheduled.id);
      return delivery.attempts >= 2 && delivery;
    }, 'two attempts');
    expect(attempted.lastStatusCode).toBe(302);
    expect(receiver.received.every((request) => request.path === '/callback')).toBe(true);
  });

  it('counts a receiver that never answers as a failed attempt', async () => {
    receiver.reply('hang');
    const scheduled = await schedule(signedAccount, { id: 'list-7' });
    const attempted = await eventually(async () => {
      const delivery = await callbacks.get(signedAccount, scheduled.id);
      return delivery.attempts >= 1 && delivery;
    }, 'a timed-out attempt');
    expect(attempted).toMatchObject({
      status: expect.stringMatching(/pending|failed/),
      lastStatusCode: null,
    });
    expect(attempted.lastError).toMatch(/No response/);
    receiver.reply(200);
    await settled(signedAccount, scheduled.id, 'delivered');
  });
});

function account(name: string, signingSecret: string | null): Partial<AccountEntity> {
  return {
    name,
    email: `${name}@example.com`,
    plan: 'business',
    credits: 0,
    signingSecret,
    isDemo: false,
    createdAt: new Date(),
  };
}
