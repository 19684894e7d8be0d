import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanEnv, distEntry, freePort, REPO_ROOT, spawnNode } from '../../helpers/test-process';

const run = promisify(execFile);

/** A stack trace line, which none of these messages may carry. */
const STACK = /\n\s+at /;

/** node dist/src/main.js with these settings until it exits: code and output. */
async function startUntilExit(settings: Record<string, string>) {
  const proc = spawnNode(
    distEntry('src/main.js'),
    [],
    cleanEnv({ PORT: '0', HOST: '127.0.0.1', EMBEDDED_WORKER: 'false', ...settings }),
  );
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

const mysqlBase = process.env.TEST_DATABASE_URL?.match(/^(mysql|mariadb):/)
  ? new URL(process.env.TEST_DATABASE_URL.replace(/^mariadb:/, 'mysql:'))
  : null;

describe('start-up problems: a message naming the setting, no stack trace', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-startup-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an invalid LOG_LEVEL exits with code 2 naming it, like every invalid setting', async () => {
    const result = await startUntilExit({ LOG_LEVEL: 'verbose', DATABASE_URL: 'sqlite::memory:' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Invalid configuration:\n {2}LOG_LEVEL: .*"info"/);
    expect(result.stderr).not.toMatch(STACK);
  });

  it('a MySQL DATABASE_URL where no server listens: exit 1, the address and what to check', async () => {
    const port = await freePort();
    const result = await startUntilExit({ DATABASE_URL: `mysql://svc:s3cret@127.0.0.1:${port}/svc` });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `DATABASE_URL: cannot reach a MySQL/MariaDB server at 127.0.0.1:${port}: connect ECONNREFUSED ` +
        `127.0.0.1:${port}. Is the server running, and are the host and port (or ?socket= path) in ` +
        'DATABASE_URL right?',
    );
    expect(result.stdout + result.stderr).not.toMatch(STACK);
    expect(result.stdout + result.stderr).not.toContain('s3cret');
  });

  (mysqlBase ? it : it.skip)('a MySQL user the server refuses, a database it lacks: exit 2', async () => {
    const server = `${mysqlBase!.hostname}:${mysqlBase!.port || '3306'}`;
    const refused = await startUntilExit({
      DATABASE_URL: `mysql://tis_no_such_user:wrong-password@${server}/test`,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^DATABASE_URL: the MySQL/MariaDB server at ${server} refused the connection: Access denied`,
      ),
    );
    expect(refused.stderr).toMatch(/Check the user name and password in DATABASE_URL/);
    expect(refused.stdout + refused.stderr).not.toContain('wrong-password');

    const missing = new URL(mysqlBase!.toString());
    missing.pathname = '/tis_no_such_database';
    const absent = await startUntilExit({ DATABASE_URL: missing.toString() });
    expect(absent.code).toBe(2);
    expect(absent.stderr.trim()).toBe(
      `DATABASE_URL: the MySQL/MariaDB server at ${server} has no database "tis_no_such_database": ` +
        'create it (CREATE DATABASE `tis_no_such_database` CHARACTER SET utf8mb4) or correct the name in DATABASE_URL.',
    );
    for (const result of [refused, absent]) expect(result.stdout + result.stderr).not.toMatch(STACK);
  });

  it('a SQLite path that cannot be a database: exit 2 naming DATABASE_URL and the file', async () => {
    const notADatabase = join(dir, 'notes.txt');
    writeFileSync(notADatabase, 'these are not the pages of a database, but they are long enough to tell\n');
    const text = await startUntilExit({ DATABASE_URL: `sqlite:${notADatabase}` });
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(
      new RegExp(`^DATABASE_URL: cannot open the SQLite database ${notADatabase}: file is not a database`),
    );
    const underAFile = await startUntilExit({ DATABASE_URL: `sqlite:${notADatabase}/service.db` });
    expect(underAFile.code).toBe(2);
    expect(underAFile.stderr).toMatch(
      /^DATABASE_URL: cannot open the SQLite database .*notes\.txt\/service\.db/,
    );
    for (const result of [text, underAFile]) expect(result.stdout + result.stderr).not.toMatch(STACK);
  });

  it('a SQLite file that did not exist: the start-up log says it was created, and where', async () => {
    const file = join(dir, 'mistyped', 'servce.db');
    const start = async () => {
      const port = await freePort();
      const proc = spawnNode(
        distEntry('src/main.js'),
        [],
        cleanEnv({
          DATABASE_URL: `sqlite:${file}`,
          PORT: String(port),
          HOST: '127.0.0.1',
          EMBEDDED_WORKER: 'false',
        }),
      );
      try {
        const line = JSON.parse(await proc.waitForLine(/"msg":"SQLite database (created|opened)/));
        await proc.waitForLine(/HTTP server listening/);
        return line as { path: string; created: boolean; msg: string };
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exited;
      }
    };
    expect(await start()).toMatchObject({
      path: file,
      created: true,
      msg: 'SQLite database created: the file did not exist',
    });
    expect(await start()).toMatchObject({ path: file, created: false, msg: 'SQLite database opened' });
  }, 60_000);

  it('the admin command line says on stderr when it created the SQLite file', async () => {
    const file = join(dir, 'admin', 'new.db');
    const first = await run(process.execPath, [distEntry('src/admin/cli.js'), 'account:list', '--json'], {
      cwd: REPO_ROOT,
      env: cleanEnv({ DATABASE_URL: `sqlite:${file}` }),
    });
    expect(JSON.parse(first.stdout)).toEqual([]);
    expect(first.stderr.trim()).toBe(
      `${file} did not exist: a new, empty SQLite database was created there (check DATABASE_URL)`,
    );
    const again = await run(process.execPath, [distEntry('src/admin/cli.js'), 'account:list', '--json'], {
      cwd: REPO_ROOT,
      env: cleanEnv({ DATABASE_URL: `sqlite:${file}` }),
    });
    expect(again.stderr).toBe('');
  }, 60_000);
});
