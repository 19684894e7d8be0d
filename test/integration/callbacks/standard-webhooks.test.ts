import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { AccountEntity } from '../../../src/storage/entities/account.entity';
import type { CallbackDeliveryEntity } from '../../../src/storage/entities/callback-delivery.entity';
import { JobHandlerRegistry, JobKinds, JobQueue, JobRunner } from '../../../src/jobs';
import { CallbackService } from '../../../src/services/platform/callback.service';
import { standardWebhooksSecret } from '../../../src/services/platform/webhook-signatures';
import { CallbackHttpClient, createCallbackHttpClient } from '../../../src/workers/callback-http-client';
import { createCallbackDeliveryHandler } from '../../../src/workers/callback-delivery.worker';
import { CallbackReceiver, ReceivedCallback, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { openTestDatabase, OpenedTestDatabase, testRunnerOptions } from '../jobs/job-test-kit';

const SECRET = 'a3f1c0de5eed0123456789abcdef0123456789abcdef0123456789abcdef0123';
const REPLACED = '0ld5ecre7000000000000000000000000000000000000000000000000000000';
const HOUR = 3_600_000;

/**
 * Every signed callback also carries Standard Webhooks headers (webhook-id, webhook-timestamp,
 * webhook-signature), checked here by the `standardwebhooks` package, a verifier nobody here
 * wrote: real deliveries verify with `whsec_` + base64 of the account's secret, and a tampered,
 * re-timed or replayed delivery is rejected by it. The service's clock is injected (an offset from
 * now) so a replaced secret's grace period can run out without waiting.
 */
describe('Standard Webhooks signatures on callbacks', () => {
  let test: OpenedTestDatabase;
  let callbacks: CallbackService;
  let http: CallbackHttpClient;
  let runner: JobRunner;
  let receiver: CallbackReceiver;
  let accountId: number;
  /** How far the service's clock is ahead of the real one. */
  let clockShiftMs = 0;

  beforeAll(async () => {
    test = await openTestDatabase();
    const queue = new JobQueue(test.db);
    callbacks = new CallbackService(test.db, queue, {
      retryWindowMs: 200,
      retry: { baseMs: 20, capMs: 80, jitter: 0 },
      allowPrivateTargets: true,
      now: () => new Date(Date.now() + clockShiftMs),
    });
    http = createCallbackHttpClient({ timeoutMs: 1000, allowPrivateTargets: true });
    const registry = new JobHandlerRegistry().register(
      JobKinds.callbackDelivery,
      createCallbackDeliveryHandler(callbacks, { headerPrefix: 'service', post: http.post }),
    );
    runner = new JobRunner(queue, registry, testRunnerOptions(registry.kinds(), { concurrency: 2 }));
    runner.start();
    receiver = await startCallbackReceiver({ secret: SECRET });
    accountId = (
      await test.db.manager.save(AccountEntity, {
        name: 'hooks',
        email: 'hooks@example.com',
        plan: 'business',
        credits: 0,
        signingSecret: SECRET,
        isDemo: false,
        createdAt: new Date(),
      })
    ).id;
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
    clockShiftMs = 0;
  });

  const deliver = async (
    payload: unknown,
  ): Promise<{ scheduled: CallbackDeliveryEntity; request: ReceivedCallback }> => {
    const scheduled = await test.db.transaction((m) =>
      callbacks.schedule(m, { accountId, url: receiver.url, event: 'list.ready', payload }),
    );
    await eventually(
      async () => (await callbacks.get(accountId, scheduled.id)).status === 'delivered',
      'delivered',
    );
    return { scheduled, request: receiver.received.find((r) => r.headers['webhook-id'] === scheduled.id)! };
  };

  /** What a receiver does with the library: verify(raw body, headers), at `atMs` on its clock. */
  const verify = (secret: string, body: string, headers: ReceivedCallback['headers'], atMs = Date.now()) => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(atMs);
    try {
      return new Webhook(standardWebhooksSecret(secret)).verify(body, headers as Record<string, string>);
    } finally {
      clock.mockRestore();
    }
  };

  it('a delivery verifies with whsec_ + base64(secret): id is the delivery, timestamp the attempt', async () => {
    const payload = { id: 'list-1', status: 'Ready', note: 'Grüße "quoted" ✓' };
    const before = Math.floor(Date.now() / 1000);
    const { scheduled, request } = await deliver(payload);
    expect(request.headers['webhook-id']).toBe(scheduled.id);
    const timestamp = Number(request.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(SECRET, request.body, request.headers)).toEqual(payload);
    // The commercial API's signature is still there, unchanged.
    expect(request.signatureValid).toBe(true);
  });

  it('a tampered body, id or timestamp, or another secret, is rejected by the verifier', async () => {
    const { request } = await deliver({ id: 'list-2', rows: 3 });
    const headers = request.headers;
    const rejects = (body: string, changed: Record<string, string>, secret = SECRET) =>
      expect(() => verify(secret, body, { ...headers, ...changed })).toThrow(WebhookVerificationError);
    rejects(request.body.replace('3', '4'), {});
    rejects(request.body, { 'webhook-id': `${headers['webhook-id']}x` });
    rejects(request.body, { 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) });
    rejects(request.body, {}, REPLACED);
    expect(verify(SECRET, request.body, headers)).toEqual({ id: 'list-2', rows: 3 });
  });

  it('a delivery captured and replayed six minutes later is rejected as stale', async () => {
    const { request } = await deliver({ id: 'list-3' });
    const sentAt = Number(request.headers['webhook-timestamp']) * 1000;
    expect(() => verify(SECRET, request.body, request.headers, sentAt + 6 * 60_000)).toThrow(
      'Message timestamp too old',
    );
  });

  it('retries carry the same webhook-id (receivers deduplicate on it), each attempt signed afresh', async () => {
    receiver.reply((_request, index) => (index < 1 ? 500 : 204));
    const scheduled = await test.db.transaction((m) =>
      callbacks.schedule(m, { accountId, url: receiver.url, event: 'list.ready', payload: { id: 'list-4' } }),
    );
    await eventually(
      async () => (await callbacks.get(accountId, scheduled.id)).status === 'delivered',
      'delivered',
    );
    expect(receiver.received).toHaveLength(2);
    for (const request of receiver.received) {
      expect(request.headers['webhook-id']).toBe(scheduled.id);
      expect(verify(SECRET, request.body, request.headers)).toEqual({ id: 'list-4' });
    }
  });

  it('a replaced secret signs beside the new one during its grace period, and stops after it', async () => {
    await test.db.manager.update(
      AccountEntity,
      { id: accountId },
      { previousSigningSecret: REPLACED, previousSigningSecretUntil: new Date(Date.now() + HOUR) },
    );
    const during = (await deliver({ id: 'list-5' })).request;
    expect(during.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verify(SECRET, during.body, during.headers)).toEqual({ id: 'list-5' });
    expect(verify(REPLACED, during.body, during.headers)).toEqual({ id: 'list-5' });

    clockShiftMs = 2 * HOUR;
    const after = (await deliver({ id: 'list-6' })).request;
    const receivedAt = Number(after.headers['webhook-timestamp']) * 1000;
    expect(after.headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verify(SECRET, after.body, after.headers, receivedAt)).toEqual({ id: 'list-6' });
    expect(() => verify(REPLACED, after.body, after.headers, receivedAt)).toThrow(
      'No matching signature found',
    );
  });
});
