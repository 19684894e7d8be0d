import { startCallbackReceiver, CallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { startTestService, TestService } from '../../helpers/test-service';

const LOG_QUERY = `query Log($limit: Int!, $before: String) {
  callbackDeliveries(limit: $limit, before: $before) {
    deliveries { id url event body status attempts lastStatusCode lastError createdAt deliveredAt }
    nextBefore
  }
}`;

describe('callback delivery log and redelivery over GraphQL', () => {
  let service: TestService;
  let receiver: CallbackReceiver;
  let account: { accountId: number; apiKey: string };

  beforeAll(async () => {
    service = await startTestService({ JOB_POLL_INTERVAL_MS: '50' });
    account = await service.createAccount({ plan: 'small' });
    const { secret } = await service.running.services.accounts.createSigningSecret(account.accountId);
    receiver = await startCallbackReceiver({ secret });
  });
  afterAll(async () => {
    await receiver.close();
    await service.stop();
  });

  async function schedule(accountId: number, payload: unknown): Promise<string> {
    const { services } = service.running;
    const delivery = await services.db.transaction((m) =>
      services.callbacks.schedule(m, { accountId, url: receiver.url, event: 'test.event', payload }),
    );
    return delivery.id;
  }

  it('lists the caller’s deliveries, newest first, with paging, and not other accounts’ ones', async () => {
    const other = await service.createAccount();
    const first = await schedule(account.accountId, { n: 1 });
    const second = await schedule(account.accountId, { n: 2 });
    await schedule(other.accountId, { n: 'other' });
    await receiver.waitFor(3);
    // Asked every 100 ms: the account family allows 10 requests a second.
    await eventually(
      async () => {
        const res = await service.graphql(account.apiKey, LOG_QUERY, { limit: 10 });
        return res.body.data.callbackDeliveries.deliveries.every(
          (d: { status: string }) => d.status === 'delivered',
        );
      },
      { describe: 'deliveries to be recorded', intervalMs: 100 },
    );

    const page1 = await service.graphql(account.apiKey, LOG_QUERY, { limit: 1 });
    expect(page1.body.errors).toBeUndefined();
    const [newest] = page1.body.data.callbackDeliveries.deliveries;
    expect(newest).toMatchObject({
      id: second,
      url: receiver.url,
      event: 'test.event',
      body: '{"n":2}',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
    });
    expect(newest.deliveredAt).toBeGreaterThanOrEqual(newest.createdAt);
    const page2 = await service.graphql(account.apiKey, LOG_QUERY, {
      limit: 10,
      before: page1.body.data.callbackDeliveries.nextBefore,
    });
    expect(page2.body.data.callbackDeliveries.deliveries.map((d: { id: string }) => d.id)).toEqual([first]);
    expect(page2.body.data.callbackDeliveries.nextBefore).toBeNull();
    const signed = receiver.received.filter((r) => r.body !== '{"n":"other"}');
    expect(signed.map((r) => r.signatureValid)).toEqual([true, true]);
    // The other account has no signing secret: its callback goes unsigned.
    expect(receiver.received.find((r) => r.body === '{"n":"other"}')?.signatureValid).toBe(false);
  });

  it('redelivers a callback on request: the same signed body arrives again', async () => {
    const id = await schedule(account.accountId, { again: true });
    const before = receiver.received.length;
    await receiver.waitFor(before + 1);
    await eventually(
      async () => {
        const res = await service.graphql(account.apiKey, LOG_QUERY, { limit: 1 });
        return res.body.data.callbackDeliveries.deliveries[0]?.status === 'delivered';
      },
      { describe: 'the first delivery recorded', intervalMs: 100 },
    );
    const res = await service.graphql(
      account.apiKey,
      `mutation R($id: String!) { redeliverCallback(id: $id) { id status } }`,
      { id },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.redeliverCallback).toEqual({ id, status: 'pending' });
    const received = await receiver.waitFor(before + 2);
    expect(received[before + 1].body).toBe(received[before].body);
    expect(received[before + 1].signatureValid).toBe(true);
  });

  it('refuses to redeliver another account’s callback', async () => {
    const other = await service.createAccount();
    const id = await schedule(other.accountId, { private: true });
    const res = await service.graphql(
      account.apiKey,
      `mutation R($id: String!) { redeliverCallback(id: $id) { id } }`,
      { id },
    );
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('validates the page size', async () => {
    const res = await service.graphql(account.apiKey, LOG_QUERY, { limit: 0 });
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'limit' });
  });
});
