import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { loadConfig } from '../../../src/platform/config';
import { RunningService, startService } from '../../../src/service-runtime';
import { cleanEnv, distEntry, freePort, spawnProgram } from '../../helpers/test-process';
import { startTestService, TestService } from '../../helpers/test-service';

const READY = { status: 'ready', database: 'ok', migrations: 'applied', shuttingDown: false };

describe('/healthz and /readyz', () => {
  let service: TestService;
  beforeAll(async () => {
    // Checks at most every 5 minutes: the flood below must cost exactly one.
    service = await startTestService({ HEALTH_CHECK_INTERVAL_MS: '300000' });
  });
  afterAll(async () => service?.stop());

  it('a flood of health checks costs the database one check per interval', async () => {
    expect(service.running.services.health.checks).toBe(0);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => service.request(i % 2 ? '/healthz' : '/readyz')),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(60).fill(200));
    expect(service.running.services.health.checks).toBe(1);
  });

  it('a healthy service: /healthz keeps its body, /readyz says ready', async () => {
    const health = await service.request('/healthz');
    expect(health.status).toBe(200);
    expect(health.text).toBe('{"status":"ok","database":"ok"}');
    const ready = await service.request('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual(READY);
    expect(ready.headers.get('cache-control')).toBe('no-store');
  });
});

/**
 * Shutting down: from the moment stop begins (SIGTERM), /readyz answers 503 while requests in
 * flight finish; /healthz still answers 200 (the process is alive and its database fine). The
 * probes ride on a connection the drain keeps open (a request in flight), pipelined behind it.
 */
describe('/readyz while the service shuts down', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ HEALTH_CHECK_INTERVAL_MS: '0', SHUTDOWN_GRACE_MS: '30000' });
  });
  afterAll(async () => service?.stop());

  it('answers 503 shuttingDown from the start of the stop, /healthz 200', async () => {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = JSON.stringify({ query: '{ __typename }' });
    socket.write(
      'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    // The server has taken the request (it answers 100 Continue as it emits it): it is in flight.
    await new Promise<void>((resolve) => {
      const check = () => received.includes('100 Continue') && (socket.off('data', check), resolve());
      socket.on('data', check);
    });

    const stopped = service.running.stop();
    socket.write(
      body +
        'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' +
        'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    );
    await ended;
    await stopped;

    const answers = received
      .split(/(?=HTTP\/1\.1 )/)
      .filter((part) => !part.startsWith('HTTP/1.1 100'))
      .map((part) => ({ status: Number(part.slice(9, 12)), body: part.slice(part.indexOf('\r\n\r\n') + 4) }));
    expect(answers.map((a) => a.status)).toEqual([200, 503, 200]);
    expect(JSON.parse(answers[1].body)).toEqual({ ...READY, status: 'not-ready', shuttingDown: true });
    expect(JSON.parse(answers[2].body)).toEqual({ status: 'ok', database: 'ok' });
  });
});

/**
 * A SQLite file made read-only. As root, file modes do not apply: the service then runs as
 * `nobody`. The checks run on every request here (HEALTH_CHECK_INTERVAL_MS=0), so each answer
 * tells the state of that moment.
 */
const onSqlite = process.env.TEST_DATABASE_URL?.match(/^(mysql|mariadb):/) ? describe.skip : describe;

onSqlite('a SQLite database made read-only', () => {
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-readonly-'));
    if (asUser.uid !== undefined) chownSync(dir, asUser.uid, asUser.gid!);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const setMode = (mode: number) => {
    for (const name of readdirSync(dir)) chmodSync(join(dir, name), mode);
  };

  const start = async () => {
    const port = await freePort();
    const proc = spawnProgram(
      process.execPath,
      [distEntry('src/main.js')],
      cleanEnv({
        DATABASE_URL: `sqlite:${join(dir, 'service.db')}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        EMBEDDED_WORKER: 'false',
        HEALTH_CHECK_INTERVAL_MS: '0',
      }),
      asUser,
    );
    await proc.waitForLine(/HTTP server listening/);
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      return { status: res.status, body: await res.json() };
    };
    return { proc, get };
  };

  it('made read-only while the service runs: /healthz and /readyz say unwritable, then ok again', async () => {
    const { proc, get } = await start();
    try {
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
      setMode(0o444);
      expect(await get('/healthz')).toEqual({
        status: 503,
        body: { status: 'unavailable', database: 'unwritable' },
      });
      expect(await get('/readyz')).toEqual({
        status: 503,
        body: { ...READY, status: 'not-ready', database: 'unwritable' },
      });
      await proc.waitForLine(/"msg":"health check: database not usable"/);
      expect(proc.stdout()).toMatch(/attempt to write a readonly database/);

      setMode(0o644);
      expect(await get('/healthz')).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
      expect(await get('/readyz')).toEqual({ status: 200, body: READY });
      await proc.waitForLine(/"msg":"database usable again"/);
    } finally {
      setMode(0o644);
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 60_000);

  it('started on read-only files: unwritable, and still so once the files are writable again', async () => {
    setMode(0o444);
    const { proc, get } = await start();
    try {
      const unwritable = { status: 503, body: { status: 'unavailable', database: 'unwritable' } };
      expect(await get('/healthz')).toEqual(unwritable);
      // SQLite opened the file read-only and keeps it so: the service still cannot write.
      setMode(0o644);
      expect(await get('/healthz')).toEqual(unwritable);
      expect((await get('/readyz')).status).toBe(503);
    } finally {
      setMode(0o644);
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 60_000);
});

/** MariaDB: a database user allowed to read but not to write. */
const mysqlBase = process.env.TEST_DATABASE_URL?.match(/^(mysql|mariadb):/)
  ? new URL(process.env.TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'))
  : null;

(mysqlBase ? describe : describe.skip)('MariaDB: a user who may only read', () => {
  let writer: TestService;
  let reader: RunningService;
  const user = `tis_ro_${process.pid}`;

  const admin = () =>
    createConnection({
      host: mysqlBase!.hostname,
      port: Number(mysqlBase!.port || 3306),
      user: decodeURIComponent(mysqlBase!.username),
      password: decodeURIComponent(mysqlBase!.password),
    });

  beforeAll(async () => {
    writer = await startTestService();
    const database = new URL(writer.running.services.config.DATABASE_URL).pathname.slice(1);
    const conn = await admin();
    try {
      await conn.query(`CREATE USER IF NOT EXISTS '${user}'@'%' IDENTIFIED BY 'read-only-password'`);
      await conn.query(`GRANT SELECT ON \`${database}\`.* TO '${user}'@'%'`);
    } finally {
      await conn.end();
    }
    const url = new URL(writer.running.services.config.DATABASE_URL);
    url.username = user;
    url.password = 'read-only-password';
    reader = await startService(
      loadConfig({
        NODE_ENV: 'test',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATABASE_URL: url.toString(),
        MIGRATE_ON_START: 'false',
        EMBEDDED_WORKER: 'false',
        RENDER: 'off',
      }),
    );
  });
  afterAll(async () => {
    await reader?.stop();
    await writer?.stop();
    const conn = await admin();
    await conn.query(`DROP USER IF EXISTS '${user}'@'%'`);
    await conn.end();
  });

  it('/healthz and /readyz say unwritable for the reader, ok for the writer', async () => {
    const get = async (base: string, path: string) => {
      const res = await fetch(base + path);
      return { status: res.status, body: await res.json() };
    };
    expect(await get(reader.url, '/healthz')).toEqual({
      status: 503,
      body: { status: 'unavailable', database: 'unwritable' },
    });
    expect(await get(reader.url, '/readyz')).toEqual({
      status: 503,
      body: { ...READY, status: 'not-ready', database: 'unwritable' },
    });
    expect(await get(writer.url, '/healthz')).toEqual({
      status: 200,
      body: { status: 'ok', database: 'ok' },
    });
  });
});
