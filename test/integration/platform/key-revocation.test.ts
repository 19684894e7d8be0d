import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { TOPICS } from '../../../src/platform/event-bus';
import { startTestService, TestService } from '../../helpers/test-service';
import { cleanEnv, distEntry, REPO_ROOT } from '../../helpers/test-process';

const run = promisify(execFile);

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A key revoked by the admin CLI (`node dist/src/admin/cli.js key:revoke`, a process of its own
 * writing the database) is refused by the service's very next use of it, though the service had
 * it in its key cache (KEY_CACHE_SECONDS) and no Redis tells it anything: the next REST request,
 * the next GraphQL request, the next WebSocket connection; an open subscription of it receives no
 * further event and is closed. The periodic re-check of WebSocket keys is set out of reach
 * (WS_KEY_RECHECK_MS), so nothing here waits for it. On SQLite, and on MariaDB with
 * TEST_DATABASE_URL.
 */
describe('a key revoked by the admin CLI, one API process without Redis', () => {
  let service: TestService;
  let accountId: number;
  const clients: Client[] = [];

  beforeAll(async () => {
    service = await startTestService({ WS_KEY_RECHECK_MS: '600000', KEY_CACHE_SECONDS: '600' });
    ({ accountId } = await service.createAccount({ plan: 'business', credits: 100 }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await service.stop();
  });

  const newKey = () => service.running.services.accounts.createKey(accountId);

  const revokeByCli = async (keyId: number) => {
    const { stdout } = await run(
      process.execPath,
      [distEntry('src/admin/cli.js'), 'key:revoke', '--key', String(keyId), '--json'],
      { cwd: REPO_ROOT, env: cleanEnv({ DATABASE_URL: service.running.services.config.DATABASE_URL }) },
    );
    expect(JSON.parse(stdout)).toEqual({ keyId, revoked: true });
  };

  /** A graphql-ws subscription to creditsChanged: its events, whether acknowledged, how it was closed. */
  const subscribe = (apiKey: string) => {
    const state: {
      events: unknown[];
      acknowledged: boolean;
      closed: { code: number; reason: string } | undefined;
    } = { events: [], acknowledged: false, closed: undefined };
    const client = createClient({
      url: service.url.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
      on: {
        connected: () => (state.acknowledged = true),
        closed: (event) => {
          const { code, reason } = event as { code: number; reason: string };
          state.closed = { code, reason };
        },
      },
    });
    clients.push(client);
    client.subscribe(
      { query: 'subscription { creditsChanged { credits reason } }' },
      { next: (value) => void state.events.push(value), error: () => undefined, complete: () => undefined },
    );
    return state;
  };

  it('reads key_revocations for a request that is not metered, and not for one that is (the hot path)', async () => {
    const { apiKey } = await newKey();
    const auth = service.running.services.auth;
    expect((await service.request('/v2/lists/', { key: apiKey })).status).toBe(200);
    let before = auth.revocationReads;
    // GET /v2/credits/balance/ is counted toward the quota: its settlement checks the key.
    for (let i = 0; i < 3; i++)
      expect((await service.request('/v2/credits/balance/', { key: apiKey })).status).toBe(200);
    expect(auth.revocationReads).toBe(before);
    before = auth.revocationReads;
    for (let i = 0; i < 3; i++)
      expect((await service.request('/v2/lists/', { key: apiKey })).status).toBe(200);
    expect(auth.revocationReads).toBe(before + 3);
  });

  it('refuses the next REST request of the key (an unmetered one: GET /v2/lists/)', async () => {
    const { keyId, apiKey } = await newKey();
    const before = await service.request('/v2/lists/', { key: apiKey });
    expect(before.status).toBe(200);
    await revokeByCli(keyId);
    const after = await service.request('/v2/lists/', { key: apiKey });
    expect(after.status).toBe(403);
    expect(after.body).toMatchObject({ code: 'UNAUTHENTICATED', message: 'This API key has been revoked' });
  }, 60_000);

  it('refuses the next GraphQL request of the key', async () => {
    const { keyId, apiKey } = await newKey();
    const before = await service.graphql(apiKey, '{ lists { id } }');
    expect(before.body).toEqual({ data: { lists: [] } });
    await revokeByCli(keyId);
    const after = await service.graphql(apiKey, '{ lists { id } }');
    expect(after.body.errors[0]).toMatchObject({
      message: 'This API key has been revoked',
      extensions: { code: 'UNAUTHENTICATED' },
    });
    expect(after.body.data).toBeNull();
  }, 60_000);

  it('refuses the next GraphQL mutation of the key before it runs', async () => {
    const { keyId, apiKey } = await newKey();
    const mutation = 'mutation { deleteList(id: "no-such-list") }';
    const before = await service.graphql(apiKey, mutation);
    expect(before.body.errors[0].extensions.code).toBe('NOT_FOUND');
    await revokeByCli(keyId);
    const after = await service.graphql(apiKey, mutation);
    expect(after.body.errors[0]).toMatchObject({
      message: 'This API key has been revoked',
      extensions: { code: 'UNAUTHENTICATED' },
    });
  }, 60_000);

  it('refuses the next WebSocket connection of the key', async () => {
    const { keyId, apiKey } = await newKey();
    // The key is in the cache: a request answered with it.
    expect((await service.request('/v2/lists/', { key: apiKey })).status).toBe(200);
    await revokeByCli(keyId);
    const session = subscribe(apiKey);
    await waitFor(() => session.acknowledged || session.closed !== undefined, 'the connection to end');
    expect(session.acknowledged).toBe(false);
    expect(session.closed).toEqual({ code: 4403, reason: 'Forbidden' });
    expect(session.events).toEqual([]);
  }, 60_000);

  it('sends an open subscription of the key no further event, and closes it', async () => {
    const { keyId, apiKey } = await newKey();
    const listeners = service.running.services.events.listenerCount(TOPICS.creditsChanged);
    const session = subscribe(apiKey);
    await waitFor(
      () => service.running.services.events.listenerCount(TOPICS.creditsChanged) > listeners,
      'the subscription',
    );
    await service.running.services.credits.grant(accountId, 1, 'before the revocation');
    await waitFor(() => session.events.length === 1, 'the first event');

    await revokeByCli(keyId);
    // The next event of the account is the first thing this process does after the revocation.
    await service.running.services.credits.grant(accountId, 1, 'after the revocation');
    await waitFor(() => session.closed !== undefined, 'the session to be closed');
    expect(session.closed).toEqual({ code: 4403, reason: 'Forbidden: API key revoked' });
    expect(session.events).toEqual([
      { data: { creditsChanged: { credits: 101, reason: 'before the revocation' } } },
    ]);
  }, 60_000);
});
