import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../../../src/platform/config';
import { buildServices, Services } from '../../../src/services/services';
import { Database } from '../../../src/storage/database';
import { callerFor } from '../../helpers/test-caller';
import {
  cleanEnv,
  distEntry,
  freePort,
  REPO_ROOT,
  spawnNode,
  SpawnedProcess,
} from '../../helpers/test-process';

const run = promisify(execFile);

interface Rows {
  accounts: Map<number, number>;
  keys: Set<number>;
  ledger: Map<number, number>;
  lists: Set<string>;
}

/** What the file holds now, read on a connection of its own. */
function rowsOf(file: string): Rows {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const pairs = <K, V>(sql: string) => db.prepare(sql).raw().all() as [K, V][];
    return {
      accounts: new Map(pairs<number, number>('SELECT id, credits FROM accounts')),
      keys: new Set(pairs<number, never>('SELECT id FROM api_keys').map(([id]) => id)),
      ledger: new Map(pairs<number, number>('SELECT id, account_id FROM credit_ledger')),
      lists: new Set(pairs<string, never>('SELECT id FROM lead_lists').map(([id]) => id)),
    };
  } finally {
    db.close();
  }
}

function balancesAgainstLedger(file: string): { id: number; credits: number; ledger: number }[] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        'SELECT a.id, a.credits, COALESCE(SUM(l.delta), 0) AS ledger FROM accounts a ' +
          'LEFT JOIN credit_ledger l ON l.account_id = a.id GROUP BY a.id, a.credits ORDER BY a.id',
      )
      .all() as { id: number; credits: number; ledger: number }[];
  } finally {
    db.close();
  }
}

const subsetOf = <T>(small: Iterable<T>, big: { has(value: T): boolean }) =>
  [...small].filter((v) => !big.has(v));

const onSqlite = process.env.TEST_DATABASE_URL?.match(/^(mysql|mariadb):/) ? describe.skip : describe;

/**
 * `admin db:backup` of a live SQLite database under write load (the service with its worker,
 * another process creating accounts, keys, grants, charges and lead lists), restored into a fresh
 * directory: the service starts on the copy and everything that existed when the backup began is
 * there, and every balance equals the sum of its ledger rows (a torn copy would break both).
 */
onSqlite('admin db:backup: a live SQLite database, restored', () => {
  let dir: string;
  let restoredDir: string;
  let service: SpawnedProcess | null = null;
  let restored: SpawnedProcess | null = null;
  let db: Database | null = null;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-backup-'));
    restoredDir = mkdtempSync(join(tmpdir(), 'tis-restored-'));
  });
  afterAll(async () => {
    for (const proc of [service, restored]) {
      proc?.kill();
      await proc?.exited;
    }
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(restoredDir, { recursive: true, force: true });
  });

  const startService = async (file: string) => {
    const port = await freePort();
    const proc = spawnNode(
      distEntry('src/main.js'),
      [],
      cleanEnv({
        DATABASE_URL: `sqlite:${file}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        LISTS_DIR: join(dir, 'lists'),
        JOB_POLL_INTERVAL_MS: '50',
      }),
    );
    await proc.waitForLine(/HTTP server listening/);
    return { proc, base: `http://127.0.0.1:${port}` };
  };

  it('copies it consistently while it is written, and the service runs on the copy', async () => {
    const file = join(dir, 'service.db');
    const live = await startService(file);
    service = live.proc;
    db = await Database.open(`sqlite:${file}`);
    const services: Services = await buildServices(loadConfig({ DATABASE_URL: `sqlite:${file}` }), db);

    // Another process's writes, one round after another until told to stop.
    const keys = new Map<number, string>();
    let rounds = 0;
    let stop = false;
    let roundDone: () => void = () => undefined;
    const load = (async () => {
      while (!stop) {
        const created = await services.accounts.createAccount({
          name: `Load ${rounds}`,
          email: `load${rounds}@backup.test`,
          plan: 'business',
          credits: 50,
        });
        keys.set(created.accountId, created.apiKey);
        await services.accounts.createKey(created.accountId);
        await services.credits.grant(created.accountId, 5, 'backup test top-up');
        const caller = await callerFor(services, created.apiKey);
        await services.metering.run(
          caller,
          { minimumCost: 2, cost: () => 2, reason: 'load' },
          async () => 'ok',
        );
        const list = await fetch(`${live.base}/v2/lists`, {
          method: 'POST',
          headers: { 'x-api-key': created.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ technologies: [{ slug: 'wordpress' }] }),
        });
        if (list.status !== 200) throw new Error(`POST /v2/lists: ${list.status} ${await list.text()}`);
        rounds++;
        roundDone();
      }
    })();
    const afterRound = (n: number) =>
      new Promise<void>((resolve) => {
        roundDone = () => rounds >= n && resolve();
        roundDone();
      });

    await afterRound(10);
    const before = rowsOf(file);
    const roundsAtStart = rounds;
    const backup = join(dir, 'backup.db');
    const { stdout } = await run(
      process.execPath,
      [distEntry('src/admin/cli.js'), 'db:backup', '--to', backup, '--json'],
      {
        cwd: REPO_ROOT,
        env: cleanEnv({ DATABASE_URL: `sqlite:${file}` }),
      },
    );
    const roundsDuringBackup = rounds - roundsAtStart;
    stop = true;
    await load;
    const after = rowsOf(file);

    expect(JSON.parse(stdout)).toEqual({
      from: file,
      to: backup,
      bytes: expect.any(Number),
      pages: expect.any(Number),
      check: 'ok',
    });
    expect(roundsDuringBackup).toBeGreaterThan(0); // it was written to while the copy ran
    expect(readdirSync(dir).filter((name) => name.includes('.partial-'))).toEqual([]);

    live.proc.child.kill('SIGTERM');
    expect((await live.proc.exited).code).toBe(0);
    service = null;

    // Restore: the copy alone, into an empty directory.
    const restoredFile = join(restoredDir, 'service.db');
    copyFileSync(backup, restoredFile);
    expect(existsSync(`${restoredFile}-wal`)).toBe(false);
    const copy = await startService(restoredFile);
    restored = copy.proc;
    expect(await (await fetch(`${copy.base}/healthz`)).json()).toEqual({ status: 'ok', database: 'ok' });

    const got = rowsOf(restoredFile);
    // Everything written before the backup began is in the copy; nothing that never existed is.
    expect(subsetOf(before.accounts.keys(), got.accounts)).toEqual([]);
    expect(subsetOf(before.keys, got.keys)).toEqual([]);
    expect(subsetOf(before.ledger.keys(), got.ledger)).toEqual([]);
    expect(subsetOf(before.lists, got.lists)).toEqual([]);
    expect(subsetOf(got.accounts.keys(), after.accounts)).toEqual([]);
    expect(subsetOf(got.ledger.keys(), after.ledger)).toEqual([]);
    expect(before.accounts.size).toBeGreaterThanOrEqual(10);
    expect(before.lists.size).toBeGreaterThanOrEqual(10);

    // Every balance equals its ledger: the copy is one moment of the database, not a mix.
    const balances = balancesAgainstLedger(restoredFile);
    expect(balances.length).toBe(got.accounts.size);
    expect(balances.filter((b) => b.credits !== b.ledger)).toEqual([]);

    // The restored service knows every key, balance and list of the accounts in the copy.
    for (const [accountId, apiKey] of keys) {
      if (!got.accounts.has(accountId)) continue;
      const balance = await fetch(`${copy.base}/v2/credits/balance/`, { headers: { 'x-api-key': apiKey } });
      expect({ accountId, status: balance.status, body: await balance.json() }).toEqual({
        accountId,
        status: 200,
        body: { credits: got.accounts.get(accountId) },
      });
      const lists = await fetch(`${copy.base}/v2/lists/`, { headers: { 'x-api-key': apiKey } });
      expect(lists.status).toBe(200);
      const listed = (await lists.json()) as { id: string }[];
      for (const { id } of listed) expect(got.lists.has(id)).toBe(true);
    }
  }, 240_000);

  it('refuses a destination that exists, and a DATABASE_URL with no database', async () => {
    const existing = join(dir, 'backup.db');
    const cli = (settings: Record<string, string>, to: string) =>
      run(process.execPath, [distEntry('src/admin/cli.js'), 'db:backup', '--to', to], {
        cwd: REPO_ROOT,
        env: cleanEnv(settings),
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    expect(await cli({ DATABASE_URL: `sqlite:${join(dir, 'service.db')}` }, existing)).toEqual({
      code: 2,
      stderr: `--to ${existing} exists already: choose a new file\n`,
    });
    const missing = join(dir, 'no-such.db');
    expect(await cli({ DATABASE_URL: `sqlite:${missing}` }, join(dir, 'other.db'))).toEqual({
      code: 2,
      stderr: `DATABASE_URL: there is no SQLite database at ${missing}\n`,
    });
    expect(existsSync(missing)).toBe(false);
  }, 60_000);
});

describe('admin db:backup with MySQL/MariaDB', () => {
  it('says it backs up SQLite only and prints the mariadb-dump command, exit code 2', async () => {
    const result = await run(process.execPath, [distEntry('src/admin/cli.js'), 'db:backup', '--to', 'x.db'], {
      cwd: REPO_ROOT,
      env: cleanEnv({
        DATABASE_URL: 'mysql://svc:s3cret@db.example:3307/tis?socket=/run/mysqld/mysqld.sock',
      }),
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^db:backup copies a SQLite database; DATABASE_URL names MySQL\/MariaDB/);
    expect(result.stderr).toContain(
      'mariadb-dump --single-transaction --routines --triggers --hex-blob --default-character-set=utf8mb4 ' +
        '--socket=/run/mysqld/mysqld.sock --user=svc --password tis > backup.sql',
    );
    expect(result.stderr).toContain('mariabackup');
    expect(result.stderr).not.toContain('s3cret');
  }, 60_000);
});
