import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createServer, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Client, createClient } from 'graphql-ws';
import { createConnection } from 'mysql2/promise';
import WebSocket from 'ws';
import { startCallbackReceiver, CallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';
import {
  cleanEnv,
  distEntry,
  freePort,
  REPO_ROOT,
  spawnNode,
  SpawnedProcess,
} from '../../helpers/test-process';

const run = promisify(execFile);
const onMysql = /^mysql:/.test(process.env.TEST_DATABASE_URL ?? '');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface JobRow {
  id: number;
  status: string;
  attempts: number;
  lease_owner: string | null;
  last_error: string | null;
}

/** A site whose home page answers only when `release()` is called (a crawl that is mid-job). */
async function startSite(options: { hold?: boolean } = {}) {
  const held: ServerResponse[] = [];
  let holding = options.hold === true;
  let homeRequests = 0;
  const page = (res: ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<html><head><title>Shop</title><script src="/js/jquery-3.7.1.min.js"></script></head><body>Hi</body></html>',
      );
  const server: Server = createServer((req, res) => {
    if (req.url === '/') {
      homeRequests++;
      if (holding) held.push(res);
      else page(res);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    homeRequests: () => homeRequests,
    heldCount: () => held.length,
    release() {
      holding = false;
      for (const res of held.splice(0)) page(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GET over a connection from `localAddress` (another loopback address: a client of its own). */
function getFrom(
  localAddress: string,
  port: number,
  path: string,
  apiKey: string,
): Promise<{ status: number; body: string; retryAfter: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, localAddress, headers: { 'x-api-key': apiKey } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, retryAfter: Number(res.headers['retry-after']) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** How long to wait for what other processes do (rows, events, sessions) on a busy 2-core machine. */
const ACROSS_PROCESSES = { timeoutMs: 30_000, intervalMs: 50 };

/**
 * Two API processes and two worker processes (real `node dist/...` processes, EMBEDDED_WORKER=false)
 * on one MariaDB database and one Redis: they behave as one service. Multi-process needs MySQL or
 * MariaDB (TEST_DATABASE_URL=mysql://...); on SQLite the suite is skipped.
 */
(onMysql ? describe : describe.skip)('several API and worker processes on MariaDB with Redis', () => {
  let database: TestDatabase;
  const started: SpawnedProcess[] = [];
  const ports: number[] = [];
  const workers: SpawnedProcess[] = [];
  const clients: Client[] = [];
  let receiver: CallbackReceiver;
  let apiKey: string;
  let accountId: number;
  // A random prefix per run, the same for every process of it: nothing shared with other runs.
  const redisPrefix = `test-scale-${randomBytes(6).toString('hex')}:`;

  const env = (settings: Record<string, string> = {}) =>
    cleanEnv({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      EMBEDDED_WORKER: 'false',
      ALLOW_PRIVATE_TARGETS: 'true',
      DNS_SERVERS: '127.0.0.1:9',
      DNS_TIMEOUT_MS: '200',
      RENDER: 'off',
      REDIS_URL,
      REDIS_KEY_PREFIX: redisPrefix,
      PUBLIC_RATE_LIMIT_PER_MINUTE: '3',
      AUTH_FAILURES_PER_MINUTE: '4',
      // Short leases so a killed worker's job is recovered soon; long enough for a busy 2-core machine.
      JOB_LEASE_SECONDS: '6',
      JOB_POLL_INTERVAL_MS: '100',
      // No periodic re-check of WebSocket keys within a test: a revocation must arrive as an event.
      WS_KEY_RECHECK_MS: '600000',
      ...settings,
    });

  const admin = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args, '--json'], {
      cwd: REPO_ROOT,
      env: env({ LOG_LEVEL: 'warn' }),
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  const jobs = async (): Promise<JobRow[]> => {
    const conn = await createConnection(database.url);
    try {
      const [rows] = await conn.query(
        'SELECT id, status, attempts, lease_owner, last_error FROM jobs WHERE kind = ? ORDER BY id',
        ['analysis.run'],
      );
      return rows as JobRow[];
    } finally {
      await conn.end();
    }
  };

  const lookup = (port: number, siteUrl: string) =>
    fetch(
      `http://127.0.0.1:${port}/lookup/v1/?${new URLSearchParams({ url: siteUrl, callback_url: receiver.url })}`,
      { headers: { 'x-api-key': apiKey } },
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await startCallbackReceiver();
    // The first process migrates; the rest start on the migrated schema.
    await admin('db:migrate');
    const created = await admin(
      'account:create',
      '--name',
      'Scale',
      '--email',
      'scale@example.com',
      '--plan',
      'large',
      '--credits',
      '1000',
    );
    apiKey = created.apiKey as string;
    accountId = created.accountId as number;
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const proc = spawnNode(distEntry('src/main.js'), [], env({ PORT: String(port) }));
      started.push(proc);
      ports.push(port);
    }
    for (let i = 0; i < 2; i++) {
      const proc = spawnNode(distEntry('src/worker-main.js'), [], env());
      started.push(proc);
      workers.push(proc);
    }
    await Promise.all(started.map((proc) => proc.waitForLine(/service started|worker started/, 60_000)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    for (const proc of started) {
      proc.kill();
      await proc.exited;
    }
    await receiver?.close();
    await database?.drop();
  });

  it('shares the per-address limit of the public catalogue across both API ports', async () => {
    const statuses: number[] = [];
    // PUBLIC_RATE_LIMIT_PER_MINUTE=3 for the whole service: three answers in all, then 429 on either port.
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`http://127.0.0.1:${ports[i % 2]}/v2/categories`);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it('refuses every key from an address on both API ports once its failed keys reach the limit on either', async () => {
    // A client address of its own (127.0.0.7), so that the block leaves the other tests alone.
    const from = (port: number, key: string) => getFrom('127.0.0.7', port, '/v2/credits/balance/', key);
    const guess = () => `tis_${randomBytes(32).toString('hex')}`;
    const failures: number[] = [];
    // AUTH_FAILURES_PER_MINUTE=4, counted in Redis whichever port answers: the fourth failure
    // (on the second port) blocks the address there, and on the first through the event it raises.
    for (let i = 0; i < 4; i++) failures.push((await from(ports[i % 2], guess())).status);
    expect(failures).toEqual([403, 403, 403, 403]);
    const blocked = /Too many failed API keys/;
    const second = await from(ports[1], apiKey);
    expect(second.status).toBe(429);
    expect(second.body).toMatch(blocked);
    expect(second.retryAfter).toBeGreaterThanOrEqual(1);
    // A valid key is answered (200) until the event arrives, which takes a moment at most.
    const first = await eventually(
      async () => {
        const answer = await from(ports[0], apiKey);
        return answer.status === 429 && answer;
      },
      { describe: 'the first port to refuse the address', ...ACROSS_PROCESSES },
    );
    expect(first.body).toMatch(blocked);
    expect((await from(ports[0], guess())).status).toBe(429);
    // Another address is not affected.
    expect((await getFrom('127.0.0.8', ports[0], '/v2/credits/balance/', apiKey)).status).toBe(200);
  });

  it('delivers an event raised by a job in a worker to a subscription on the other API process', async () => {
    const site = await startSite();
    const marker = await startSite();
    try {
      const client = createClient({
        url: `ws://127.0.0.1:${ports[0]}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { apiKey },
        retryAttempts: 0,
      });
      clients.push(client);
      const events: { url: string; ok: boolean; technologies: string[] }[] = [];
      client.subscribe(
        { query: 'subscription { analysisCompleted { url ok technologies } }' },
        {
          next: (value) =>
            void events.push((value.data as { analysisCompleted: (typeof events)[0] }).analysisCompleted),
          error: () => undefined,
          complete: () => undefined,
        },
      );
      const of = (target: { url: string }) => (e: (typeof events)[0]) =>
        e.url.startsWith(target.url.replace(/\/$/, ''));
      // Nothing tells the client when the other process has registered the subscription: analyses
      // on the second API process are the marker. Once one reaches it, so will the worker's event.
      await eventually(
        async () => {
          if (events.some(of(marker))) return true;
          const analysed = await fetch(
            `http://127.0.0.1:${ports[1]}/analyze/v1/?${new URLSearchParams({ url: marker.url })}`,
            { headers: { 'x-api-key': apiKey } },
          );
          await analysed.arrayBuffer();
          return false;
        },
        { describe: 'a marker analysis to reach the subscription', ...ACROSS_PROCESSES, intervalMs: 200 },
      );
      const response = await lookup(ports[1], site.url);
      expect(response.status).toBe(202);
      const event = await eventually(() => events.find(of(site)), {
        describe: 'the analysisCompleted event',
        ...ACROSS_PROCESSES,
      });
      expect(event.url).toContain('127.0.0.1');
      expect(event.ok).toBe(true);
      expect(event.technologies).toContain('jquery');
      // No API process runs jobs here (EMBEDDED_WORKER=false): the analysis ran in a worker.
      const done = await eventually(async () => (await jobs()).find((row) => row.status === 'succeeded'), {
        describe: 'the analysis job succeeded',
        ...ACROSS_PROCESSES,
      });
      expect({ attempts: done.attempts, error: done.last_error }).toEqual({ attempts: 1, error: null });
    } finally {
      await site.close();
      await marker.close();
    }
  }, 60_000);

  it('runs a job whose worker was killed mid-job exactly once more, and loses none', async () => {
    const before = (await jobs()).length;
    const slow = await startSite({ hold: true });
    const quick = await Promise.all([startSite(), startSite(), startSite()]);
    try {
      expect((await lookup(ports[0], slow.url)).status).toBe(202);
      await eventually(() => slow.heldCount() > 0, {
        describe: 'the slow site being fetched',
        ...ACROSS_PROCESSES,
      });
      const slowJob = await eventually(
        async () => (await jobs()).find((row, i) => i >= before && row.status === 'running'),
        { describe: 'the running job', ...ACROSS_PROCESSES },
      );
      const owner = workers.find((proc) => slowJob.lease_owner?.includes(`:${proc.child.pid}:`));
      expect(owner).toBeDefined();
      owner!.kill();
      await owner!.exited;
      for (const site of quick) expect((await lookup(ports[1], site.url)).status).toBe(202);
      slow.release();
      const rows = await eventually(
        async () => {
          const all = (await jobs()).slice(before);
          return all.length === 4 && all.every((row) => row.status === 'succeeded') && all;
        },
        { describe: 'every job succeeded', ...ACROSS_PROCESSES },
      );
      // The killed job: one attempt lost with the worker, one that finished; every other job ran once.
      expect(rows.find((row) => row.id === slowJob.id)!.attempts).toBe(2);
      expect(rows.filter((row) => row.id !== slowJob.id).map((row) => row.attempts)).toEqual([1, 1, 1]);
      for (const site of quick) expect(site.homeRequests()).toBe(1);
      expect(slow.homeRequests()).toBe(2);
    } finally {
      slow.release();
      await Promise.all([slow, ...quick].map((site) => site.close()));
    }
  }, 90_000);

  it('refuses a key revoked by the admin CLI at its next request and connection on both API processes', async () => {
    const business = await admin(
      'account:create',
      '--name',
      'Revoked',
      '--email',
      'revoked@example.com',
      '--plan',
      'business',
    );
    const key = await admin('key:create', '--account', String(business.accountId));
    const apiKey = key.apiKey as string;
    // From an address of its own: the refusals below count as failed keys (AUTH_FAILURES_PER_MINUTE).
    const from = '127.0.0.31';
    // Both processes have the key in their caches (KEY_CACHE_SECONDS): GET /v2/lists/ is not metered,
    // so no settlement reads the key again.
    for (const port of ports) expect((await getFrom(from, port, '/v2/lists/', apiKey)).status).toBe(200);

    await admin('key:revoke', '--key', String(key.keyId));
    for (const port of ports) {
      const refused = await getFrom(from, port, '/v2/lists/', apiKey);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({
        code: 'UNAUTHENTICATED',
        message: 'This API key has been revoked',
      });
    }
    let closed: { code: number; reason: string } | undefined;
    let connected = false;
    const client = createClient({
      url: `ws://127.0.0.1:${ports[0]}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { localAddress: from });
        }
      },
      connectionParams: { apiKey },
      retryAttempts: 0,
      on: {
        connected: () => (connected = true),
        closed: (event) => (closed = event as { code: number; reason: string }),
      },
    });
    clients.push(client);
    client.subscribe(
      { query: 'subscription { creditsChanged { credits } }' },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    const event = await eventually(() => closed, 'the connection refused');
    expect(connected).toBe(false);
    expect(event.code).toBe(4403);
  }, 60_000);

  it('closes the WebSocket sessions of a key revoked by the admin CLI on another process', async () => {
    const key = await admin('key:create', '--account', String(accountId));
    let closed: { code: number; reason: string } | undefined;
    let connected = false;
    const client = createClient({
      url: `ws://127.0.0.1:${ports[1]}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { apiKey: key.apiKey },
      retryAttempts: 0,
      on: {
        connected: () => (connected = true),
        closed: (event) => (closed = event as { code: number; reason: string }),
      },
    });
    clients.push(client);
    client.subscribe(
      { query: 'subscription { creditsChanged { credits } }' },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    await eventually(() => connected, {
      describe: 'the WebSocket connection',
      ...ACROSS_PROCESSES,
    });
    await admin('key:revoke', '--key', String(key.keyId));
    const event = await eventually(() => closed, { describe: 'the session closed', ...ACROSS_PROCESSES });
    expect(event.code).toBe(4403);
    expect(event.reason).toContain('revoked');
  }, 60_000);
});
