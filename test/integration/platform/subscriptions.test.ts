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

describe('WebSocket session caps (WS_MAX_SESSIONS_PER_KEY, WS_MAX_SESSIONS_PER_ADDRESS)', () => {
  let service: TestService;
  const clients: Client[] = [];
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    service = await startTestService({ WS_MAX_SESSIONS_PER_KEY: '3', WS_MAX_SESSIONS_PER_ADDRESS: '5' });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.terminate();
    await Promise.all(clients.map((client) => client.dispose()));
    await service.stop();
  });

  /** Open WebSocket connections as the service counts them (its gauge). */
  const open = async () =>
    (await service.running.services.metrics.webSocketSessions.get()).values[0]?.value ?? 0;

  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (await condition()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  /** A graphql-ws session from `localAddress` (a loopback address of its own): acknowledged, or how it was closed. */
  const session = (apiKey: string, localAddress = '127.0.0.1') => {
    let closed: { code: number; reason: string } | undefined;
    let acknowledged = false;
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { localAddress });
        }
      },
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
      on: {
        connected: () => (acknowledged = true),
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          closed = { code, reason };
        },
      },
    });
    clients.push(client);
    client.subscribe(
      { query: SUBSCRIPTION },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    return {
      client,
      outcome: async () => {
        await eventually(() => acknowledged || closed !== undefined, 'the session acknowledged or closed');
        return closed ?? 'acknowledged';
      },
    };
  };

  /**
   * A bare WebSocket from `localAddress` that never authenticates: 'open' once the server has
   * answered a ping on it (a refused socket is closed right after the handshake and answers none),
   * or how the server closed it.
   */
  const bare = (localAddress: string) =>
    new Promise<'open' | { code: number; reason: string }>((resolve, reject) => {
      const socket = new WebSocket(service.url.replace(/^http/, 'ws') + '/graphql', 'graphql-transport-ws', {
        localAddress,
      });
      sockets.push(socket);
      socket.once('open', () => socket.ping());
      socket.once('pong', () => resolve('open'));
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      socket.once('error', reject);
    });

  it('refuses a key its fourth session with 1008 and a reason naming the cap; a closed one frees its place', async () => {
    const { apiKey } = await service.createAccount();
    const three = [session(apiKey), session(apiKey), session(apiKey)];
    for (const each of three) expect(await each.outcome()).toBe('acknowledged');
    expect(await session(apiKey).outcome()).toEqual({
      code: 1008,
      reason: 'Too many WebSocket sessions for this API key (at most 3)',
    });
    // Another key from the same address is not concerned (4 connections from it, 5 allowed).
    const other = await service.createAccount();
    expect(await session(other.apiKey).outcome()).toBe('acknowledged');

    const before = await open();
    await three[0].client.dispose();
    await until(async () => (await open()) < before, 'the server to count the closed session out');
    expect(await session(apiKey).outcome()).toBe('acknowledged');
  });

  it('refuses an address its sixth connection, authenticated or not, and no other address', async () => {
    // Six at once that never authenticate: five are let in, one is refused.
    const six = await Promise.all(Array.from({ length: 6 }, () => bare('127.0.0.2')));
    expect(six.filter((outcome) => outcome === 'open')).toHaveLength(5);
    expect(six.filter((outcome) => outcome !== 'open')).toEqual([
      { code: 1008, reason: 'Too many WebSocket sessions from this address (at most 5)' },
    ]);
    // Five authenticated sessions of two keys, then a sixth of a third key.
    const [a, b, c] = [
      await service.createAccount(),
      await service.createAccount(),
      await service.createAccount(),
    ];
    const five = [a, a, a, b, b].map((account) => session(account.apiKey, '127.0.0.4'));
    for (const each of five) expect(await each.outcome()).toBe('acknowledged');
    expect(await session(c.apiKey, '127.0.0.4').outcome()).toEqual({
      code: 1008,
      reason: 'Too many WebSocket sessions from this address (at most 5)',
    });
    expect(await session(c.apiKey, '127.0.0.3').outcome()).toBe('acknowledged');
  });
});
