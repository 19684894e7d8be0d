import { request as httpRequest } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { loadConfig } from '../../../src/platform/config';
import { Database } from '../../../src/storage/database';
import { buildServices } from '../../../src/services/services';
import { cleanEnv, distEntry, freePort, spawnNode, SpawnedProcess } from '../../helpers/test-process';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';

const DEMO_KEY = 'demo-key-that-must-never-be-logged-42';

describe('node dist/src/main.js', () => {
  it('refuses to start with an invalid setting: exit code 2 and a message naming it', async () => {
    const proc = spawnNode(
      distEntry('src/main.js'),
      [],
      cleanEnv({ PORT: 'eighty', HEADER_PREFIX: 'Not OK', DATABASE_URL: 'sqlite::memory:' }),
    );
    const { code } = await proc.exited;
    expect(code).toBe(2);
    expect(proc.stderr()).toMatch(/Invalid configuration/);
    expect(proc.stderr()).toMatch(/PORT: /);
    expect(proc.stderr()).toMatch(/HEADER_PREFIX: must be lowercase letters, digits and dashes/);
  });

  it('says which port is in use and exits non-zero, without stack traces', async () => {
    const database = await createTestDatabase();
    const occupier = createTcpServer();
    await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
    const { port } = occupier.address() as { port: number };
    try {
      const proc = spawnNode(
        distEntry('src/main.js'),
        [],
        cleanEnv({
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          EMBEDDED_WORKER: 'false',
        }),
      );
      const { code } = await proc.exited;
      expect(code).toBe(1);
      expect(proc.stderr().trim()).toBe(`port ${port} is in use (set PORT)`);
      expect(proc.stdout() + proc.stderr()).not.toMatch(/Internal error|\n\s+at /);
    } finally {
      await new Promise((resolve) => occupier.close(resolve));
      await database.drop();
    }
  });

  describe('a running service', () => {
    let database: TestDatabase;
    let proc: SpawnedProcess;
    let base: string;
    let apiKey: string;

    beforeAll(async () => {
      database = await createTestDatabase();
      const db = await Database.open(database.url);
      try {
        const services = await buildServices(loadConfig({ DATABASE_URL: database.url }), db);
        ({ apiKey } = await services.accounts.createAccount({
          name: 'Logs',
          email: 'logs@example.com',
          plan: 'small',
          credits: 3,
        }));
      } finally {
        await db.close();
      }
      const port = await freePort();
      proc = spawnNode(
        distEntry('src/main.js'),
        [],
        cleanEnv({
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'trace',
          DEMO_API_KEY: DEMO_KEY,
          EMBEDDED_WORKER: 'false',
          SHUTDOWN_GRACE_MS: '10000',
        }),
      );
      await proc.waitForLine(/HTTP server listening/);
      base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/healthz`);
      expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    });

    afterAll(async () => {
      proc?.kill();
      await proc?.exited;
      await database?.drop();
    });

    it('logs every request with its request id and never the API key', async () => {
      const ids: string[] = [];
      const send = async (path: string, init: RequestInit = {}) => {
        const res = await fetch(base + path, init);
        ids.push(res.headers.get('x-request-id')!);
        return res.status;
      };
      expect(await send('/v2/credits/balance/', { headers: { 'x-api-key': apiKey } })).toBe(200);
      expect(await send('/v2/credits/balance/', { headers: { 'x-api-key': apiKey + 'x' } })).toBe(403);
      expect(
        await send(`/v2/credits/balance/?x-api-key=${apiKey}`, { headers: { 'x-api-key': apiKey } }),
      ).toBe(400);
      expect(await send('/v2/credits/balance/', { headers: { 'x-api-key': DEMO_KEY } })).toBe(200);
      expect(
        await send('/graphql', {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ nonsense }' }),
        }),
      ).toBe(400);
      expect(
        await send('/lookup/v1/usage', { headers: { 'x-api-key': apiKey, 'x-request-id': 'my-trace-id-1' } }),
      ).toBe(200);
      expect(ids[ids.length - 1]).toBe('my-trace-id-1');

      // The access log line is written when the response finishes; give the pipe a moment.
      await proc.waitForLine(/my-trace-id-1/);
      const logs = proc.stdout() + proc.stderr();
      for (const id of ids) expect(logs).toContain(`"requestId":"${id}"`);
      expect(logs).not.toContain(apiKey);
      expect(logs).not.toContain(apiKey.slice(4)); // not even without its prefix
      expect(logs).not.toContain(DEMO_KEY);
      expect(logs).toContain('"method":"POST","path":"/graphql","status":400');
      const lines = proc.stdout().trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow(); // structured: one JSON object per line
    });

    it('shuts down on SIGTERM: the in-flight request completes, then exit code 0', async () => {
      const body = JSON.stringify({ query: '{ creditBalance { credits } }' });
      const split = Math.floor(body.length / 2);
      // Expect: 100-continue makes the server answer as soon as it has parsed the headers, so the
      // request is provably in flight (the server emitted 'request') before the signal is sent.
      const req = httpRequest(`${base}/graphql`, {
        method: 'POST',
        headers: {
          'x-api-key': apiKey,
          'content-type': 'application/json',
          'content-length': String(body.length),
          expect: '100-continue',
        },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
      });
      req.flushHeaders();
      await new Promise((resolve) => req.once('continue', resolve));
      req.write(body.slice(0, split));

      proc.child.kill('SIGTERM');
      await proc.waitForLine(/shutting down/);
      req.end(body.slice(split));

      const res = await response;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({ data: { creditBalance: { credits: 3 } } });
      expect(await proc.exited).toEqual({ code: 0, signal: null });
      expect(proc.stdout()).toMatch(/service stopped/);
    });
  });
});
