import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { eventually } from '../../helpers/eventually';
import { startTestService, TestService } from '../../helpers/test-service';

const SUBSCRIPTION = 'subscription { creditsChanged { credits delta reason } }';

interface Received {
  data?: { creditsChanged: { credits: number; delta: number; reason: string } };
  errors?: unknown[];
}

/** A subscription whose events land in an array; `ended` settles when the server ends or refuses it. */
function subscribe(client: Client) {
  const events: Received[] = [];
  const ended = new Promise<unknown>((resolve) => {
    client.subscribe(
      { query: SUBSCRIPTION },
      {
        next: (value) => void events.push(value as Received),
        error: (error) => resolve(error),
        complete: () => resolve('complete'),
      },
    );
  });
  return { events, ended };
}

describe('GraphQL subscriptions over graphql-ws', () => {
  let service: TestService;
  const clients: Client[] = [];

  const connect = (connectionParams: Record<string, unknown>) => {
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams,
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    // Open sessions re-check their key often here, so a revocation ends them soon.
    service = await startTestService({ WS_KEY_RECHECK_MS: '100' });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await service.stop();
  });

  it('pushes the caller’s credit changes and nothing of other accounts', async () => {
    const mine = await service.createAccount({ credits: 5 });
    const other = await service.createAccount({ credits: 5 });
    const { events } = subscribe(connect({ 'x-api-key': mine.apiKey }));
    const { events: otherEvents } = subscribe(connect({ apiKey: other.apiKey }));
    await eventually(
      () => service.running.services.events.listenerCount(TOPICS.creditsChanged) >= 2,
      'both subscriptions',
    );

    await service.running.services.credits.grant(other.accountId, 50, 'grant to the other account');
    await service.running.services.credits.grant(mine.accountId, 7, 'top-up');
    await eventually(() => events.length >= 1 && otherEvents.length >= 1, 'the events');

    expect(events).toEqual([{ data: { creditsChanged: { credits: 12, delta: 7, reason: 'top-up' } } }]);
    expect(otherEvents).toEqual([
      { data: { creditsChanged: { credits: 55, delta: 50, reason: 'grant to the other account' } } },
    ]);
  });

  it('pushes charges too (negative delta)', async () => {
    const mine = await service.createAccount({ credits: 5 });
    const before = service.running.services.events.listenerCount(TOPICS.creditsChanged);
    const { events } = subscribe(connect({ 'x-api-key': mine.apiKey }));
    await eventually(
      () => service.running.services.events.listenerCount(TOPICS.creditsChanged) > before,
      'subscription',
    );
    const principal = await service.running.services.auth.authenticate(mine.apiKey);
    await service.running.services.credits.charge(
      { principal, requestId: 'r-1', meter: { spent: 0, remaining: null } },
      2,
      'GET /analyze/v1/',
    );
    await eventually(() => events.length >= 1, 'the charge event');
    expect(events[0].data?.creditsChanged).toEqual({ credits: 3, delta: -2, reason: 'GET /analyze/v1/' });
  });

  it('refuses a bad key', async () => {
    const { ended, events } = subscribe(connect({ 'x-api-key': 'tis_not-a-key' }));
    const outcome = (await ended) as { code?: number };
    expect(outcome).toMatchObject({ code: 4403 });
    expect(events).toEqual([]);
  });

  it('refuses a missing key', async () => {
    const { ended } = subscribe(connect({}));
    expect(await ended).toMatchObject({ code: 4403 });
  });

  it('ends the open subscriptions of a key once it is revoked, and refuses it afterwards', async () => {
    const mine = await service.createAccount({ credits: 5 });
    const before = service.running.services.events.listenerCount(TOPICS.creditsChanged);
    const { events, ended } = subscribe(connect({ 'x-api-key': mine.apiKey }));
    await eventually(
      () => service.running.services.events.listenerCount(TOPICS.creditsChanged) > before,
      'subscription',
    );
    await service.running.services.credits.grant(mine.accountId, 1, 'before revocation');
    await eventually(() => events.length >= 1, 'the first event');

    await service.running.services.accounts.revokeKey({ apiKey: mine.apiKey });
    expect(await ended).toMatchObject({ code: 4403, reason: 'Forbidden: API key revoked' });
    await service.running.services.credits.grant(mine.accountId, 1, 'after revocation');
    expect(events).toHaveLength(1);

    const again = subscribe(connect({ 'x-api-key': mine.apiKey }));
    expect(await again.ended).toMatchObject({ code: 4403 });
    expect(again.events).toEqual([]);
  });
});
