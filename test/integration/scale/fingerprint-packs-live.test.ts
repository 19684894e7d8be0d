import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCallbackReceiver, type CallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';
import {
  cleanEnv,
  distEntry,
  freePort,
  REPO_ROOT,
  spawnNode,
  type SpawnedProcess,
} from '../../helpers/test-process';

const onMysql = /^mysql:/.test(process.env.TEST_DATABASE_URL ?? '');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ACROSS_PROCESSES = { timeoutMs: 60_000, intervalMs: 200 };
const MARKER = 'acme-live-pack-marker';

/** A site whose home page carries the marker only the new pack's technology looks for. */
async function startMarkerSite(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/')
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<html><head><title>Acme</title></head><body><div class="${MARKER}">Hi</div></body></html>`);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Issue 31's done-when: two API processes and a worker (real `node dist/...` processes) on one
 * MariaDB database and one Redis. A pack loaded with the CLI is detected by all three without a
 * restart; a bad pack is refused naming the technology and the field, and the active version stays
 * everywhere. Multi-process needs MySQL or MariaDB (TEST_DATABASE_URL=mysql://...); skipped on SQLite.
 */
(onMysql ? describe : describe.skip)('fingerprint packs switch live across processes', () => {
  let database: TestDatabase;
  let dir: string;
  let receiver: CallbackReceiver;
  let apiKey: string;
  const started: SpawnedProcess[] = [];
  const ports: number[] = [];
  let worker: SpawnedProcess;
  const redisPrefix = `test-packs-${randomBytes(6).toString('hex')}:`;

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
      JOB_POLL_INTERVAL_MS: '100',
      // Long enough that the switch must come from the Redis notice, not from a poll.
      FINGERPRINTS_POLL_SECONDS: '600',
      ...settings,
    });

  const admin = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [distEntry('src/admin/cli.js'), ...args],
        { cwd: REPO_ROOT, env: env({ LOG_LEVEL: 'warn' }) },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const adminJson = async (...args: string[]) => {
    const result = await admin(...args, '--json');
    if (result.code !== 0 && !result.stdout) throw new Error(result.stderr);
    return { code: result.code, body: JSON.parse(result.stdout) as Record<string, unknown> };
  };

  const pack = (name: string, technologies: unknown): string => {
    const root = join(dir, name);
    mkdirSync(join(root, 'technologies'), { recursive: true });
    writeFileSync(join(root, 'technologies', 'a.json'), JSON.stringify(technologies));
    writeFileSync(join(root, 'categories.json'), '{}');
    return root;
  };

  const analyzeOn = async (port: number, url: string): Promise<string[]> => {
    const response = await fetch(`http://127.0.0.1:${port}/analyze/v1/?${new URLSearchParams({ url })}`, {
      headers: { 'x-api-key': apiKey },
    });
    const body = (await response.json()) as { applications?: { name: string }[] };
    return (body.applications ?? []).map((application) => application.name);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'packs-live-'));
    receiver = await startCallbackReceiver();
    await adminJson('db:migrate');
    const created = await adminJson(
      'account:create',
      '--name',
      'Packs',
      '--email',
      'packs@example.com',
      '--plan',
      'large',
      '--credits',
      '1000',
    );
    apiKey = created.body.apiKey as string;
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      started.push(spawnNode(distEntry('src/main.js'), [], env({ PORT: String(port) })));
      ports.push(port);
    }
    worker = spawnNode(distEntry('src/worker-main.js'), [], env());
    started.push(worker);
    await Promise.all(started.map((proc) => proc.waitForLine(/service started|worker started/, 90_000)));
  }, 180_000);

  afterAll(async () => {
    for (const proc of started) {
      proc.kill();
      await proc.exited;
    }
    await receiver?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a loaded pack is detected by both API processes and the worker without a restart; a bad one is refused everywhere', async () => {
    const site = await startMarkerSite();
    try {
      // Before: nobody knows the technology.
      for (const port of ports) expect(await analyzeOn(port, site.url)).not.toContain('AcmeLive');
      const before = await adminJson('fingerprints:status');
      const first = before.body.version as string;

      // The pack implies a technology of the built-in pack: it validates as an overlay over it.
      const loaded = await adminJson(
        'fingerprints:load',
        '--from',
        pack('acme', {
          AcmeLive: { cats: [1], html: [MARKER], implies: ['PHP'], website: 'https://acme.test' },
        }),
      );
      expect(loaded.code).toBe(0);
      const version = loaded.body.version as string;
      expect(version).toMatch(/^fp-[0-9a-f]{12}$/);
      expect(version).not.toBe(first);
      expect(loaded.body.previousVersion).toBe(first);

      // Both API processes, without a restart.
      for (const port of ports)
        await eventually(async () => (await analyzeOn(port, site.url)).includes('AcmeLive'), {
          describe: `the API process on ${port} to detect the new technology`,
          ...ACROSS_PROCESSES,
        });
      // The worker logs its switch; then a queued analysis (lookup with a callback) runs on it.
      await worker.waitForLine(
        new RegExp(`fingerprint set switched.*${version}|${version}.*fingerprint set switched`),
        60_000,
      );
      const queued = await startMarkerSite();
      try {
        const response = await fetch(
          `http://127.0.0.1:${ports[0]}/lookup/v1/?${new URLSearchParams({ url: queued.url, callback_url: receiver.url })}`,
          { headers: { 'x-api-key': apiKey } },
        );
        expect(response.status).toBe(202);
        const [callback] = await receiver.waitFor(1, 60_000);
        expect(callback.body).toContain('AcmeLive');
      } finally {
        await queued.close();
      }

      // A bad pack: refused whole with the technology and field named; the version stays everywhere.
      const refused = await admin(
        'fingerprints:load',
        '--from',
        pack('bad', { BadLive: { cats: [1], html: ['(unclosed'], implies: ['NoSuchTechnology'] } }),
      );
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/^error: technologies\/a\.json: BadLive\.html\[0\]: /m);
      expect(refused.stdout).toContain('BadLive.implies[0]');
      expect(refused.stdout).toContain(`the active version stays ${version}`);
      const after = await adminJson('fingerprints:status');
      expect(after.body.version).toBe(version);
      for (const port of ports) expect(await analyzeOn(port, site.url)).toContain('AcmeLive');
      for (const proc of started) expect(proc.stdout()).not.toMatch(/failed to load or compile/);
    } finally {
      await site.close();
    }
  }, 300_000);
});
