import Sqlite from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { createDataSource } from '../../../ormconfig';
import { mysqlLockName } from '../../../src/storage/migrator';
import { MIGRATIONS } from '../../../src/storage/migrations';
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

/**
 * Several processes started at the same moment on one fresh database (as an orchestrator starts
 * replicas): one migrates under the database-wide lock, the others wait and start; the schema is
 * migrated once. Runs on SQLite (one file) and on MariaDB when TEST_DATABASE_URL is set.
 */
describe('migrations under a database-wide lock', () => {
  let database: TestDatabase;
  const started: SpawnedProcess[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
  });

  afterEach(async () => {
    for (const proc of started.splice(0)) {
      proc.kill();
      await proc.exited;
    }
    await database.drop();
  });

  const env = (settings: Record<string, string> = {}) =>
    cleanEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...settings });

  const startApi = async (settings: Record<string, string> = {}) => {
    const port = await freePort();
    const proc = spawnNode(distEntry('src/main.js'), [], env({ PORT: String(port), ...settings }));
    started.push(proc);
    return { proc, port };
  };

  const startWorker = (settings: Record<string, string> = {}) => {
    const proc = spawnNode(distEntry('src/worker-main.js'), [], env(settings));
    started.push(proc);
    return proc;
  };

  const admin = async (...args: string[]) => {
    try {
      const { stdout, stderr } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args], {
        cwd: REPO_ROOT,
        env: env({ LOG_LEVEL: 'warn' }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  const migrationRows = async (): Promise<string[]> => {
    const dataSource = createDataSource(database.url);
    await dataSource.initialize();
    try {
      const rows = (await dataSource.query('SELECT name FROM migrations ORDER BY id')) as { name: string }[];
      return rows.map((r) => r.name);
    } finally {
      await dataSource.destroy();
    }
  };

  const healthy = async (port: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    return { status: res.status, body: await res.json() };
  };

  it('three processes started at once on a fresh database all become healthy; one of them migrates', async () => {
    const [a, b] = await Promise.all([startApi(), startApi()]);
    const worker = startWorker();
    await Promise.all([
      a.proc.waitForLine(/HTTP server listening/, 60_000),
      b.proc.waitForLine(/HTTP server listening/, 60_000),
      worker.waitForLine(/worker started/, 60_000),
    ]);
    expect(await healthy(a.port)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    expect(await healthy(b.port)).toEqual({ status: 200, body: { status: 'ok', database: 'ok' } });
    expect(worker.child.exitCode).toBeNull();

    const migrators = [a.proc, b.proc, worker].filter((p) => /"msg":"database migrated"/.test(p.stdout()));
    expect(migrators).toHaveLength(1);
    const names = MIGRATIONS.map((m) => m.name);
    expect(await migrationRows()).toEqual(names);
    for (const proc of [a.proc, b.proc, worker]) expect(proc.stderr()).not.toMatch(/already exists|failed/i);
  });

  it('a process that cannot get the lock in time exits non-zero naming the lock', async () => {
    let release: () => Promise<void>;
    let lockName: RegExp;
    if (database.url.startsWith('sqlite:')) {
      const file = new Sqlite(database.url.slice('sqlite:'.length));
      file.pragma('journal_mode = WAL');
      file.exec('BEGIN IMMEDIATE');
      release = async () => {
        file.exec('ROLLBACK');
        file.close();
      };
      lockName = /SQLite write lock/;
    } else {
      const url = new URL(database.url);
      const conn = await createConnection({
        host: url.hostname,
        port: Number(url.port || 3306),
        user: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      });
      const name = mysqlLockName(url.pathname.slice(1));
      await conn.query('SELECT GET_LOCK(?, 0)', [name]);
      release = async () => {
        await conn.end();
      };
      lockName = new RegExp(`named lock "${name}"`);
    }
    try {
      const { proc } = await startApi({ MIGRATION_LOCK_TIMEOUT_SECONDS: '1' });
      const worker = startWorker({ MIGRATION_LOCK_TIMEOUT_SECONDS: '1' });
      for (const p of [proc, worker]) {
        const { code } = await p.exited;
        expect(code).toBe(1);
        expect(p.stderr()).toMatch(/Timed out after 1 s waiting for/);
        expect(p.stderr()).toMatch(lockName);
      }
    } finally {
      await release();
    }
    // Once the lock is free the same start-up succeeds.
    const { proc, port } = await startApi();
    await proc.waitForLine(/HTTP server listening/, 60_000);
    expect((await healthy(port)).status).toBe(200);
  });

  it('MIGRATE_ON_START=false refuses an outdated schema; db:status and db:migrate run them on demand', async () => {
    const refused = await startApi({ MIGRATE_ON_START: 'false' });
    expect((await refused.proc.exited).code).toBe(1);
    expect(refused.proc.stderr()).toMatch(/pending migration\(s\).*MIGRATE_ON_START=false.*db:migrate/);

    const before = await admin('db:status', '--json');
    expect(before.code).toBe(3);
    expect(JSON.parse(before.stdout)).toEqual({ applied: [], pending: MIGRATIONS.map((m) => m.name) });

    const [first, second] = await Promise.all([admin('db:migrate', '--json'), admin('db:migrate', '--json')]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const applied = [JSON.parse(first.stdout).applied, JSON.parse(second.stdout).applied];
    expect(applied.flat()).toEqual(MIGRATIONS.map((m) => m.name));

    const after = await admin('db:status', '--json');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ applied: MIGRATIONS.map((m) => m.name), pending: [] });

    const { proc, port } = await startApi({ MIGRATE_ON_START: 'false' });
    await proc.waitForLine(/HTTP server listening/, 60_000);
    expect((await healthy(port)).status).toBe(200);
  });
});
