import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/platform/config';
import { RunningService, startService } from '../../../src/service-runtime';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';
import { cleanEnv, distEntry, REPO_ROOT } from '../../helpers/test-process';

const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

describe('admin command line (node dist/src/admin/cli.js)', () => {
  let database: TestDatabase;
  let service: RunningService;

  const cli = async (...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args], {
        cwd: REPO_ROOT,
        env: cleanEnv({ DATABASE_URL: database.url }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    if (result.code !== 0)
      throw new Error(`admin ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const balance = async (key: string) => {
    const res = await fetch(`${service.url}/v2/credits/balance/`, { headers: { 'x-api-key': key } });
    return { status: res.status, body: await res.json() };
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await startService(
      loadConfig({
        NODE_ENV: 'test',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        DATABASE_URL: database.url,
      }),
    );
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('account:create --json prints {accountId, apiKey}; the key works against the service', async () => {
    const created = await json(
      'account:create',
      '--name',
      'Acme',
      '--email',
      'ops@acme.test',
      '--plan',
      'medium',
      '--credits',
      '25',
    );
    expect(Object.keys(created).sort()).toEqual(['accountId', 'apiKey']);
    expect(created.accountId).toEqual(expect.any(Number));
    expect(created.apiKey).toMatch(/^tis_[A-Za-z0-9_-]{40,}$/);
    expect(await balance(created.apiKey)).toEqual({ status: 200, body: { credits: 25 } });
  });

  it('key:create, key:revoke, credits:add, secret:create and account:show', async () => {
    const { accountId, apiKey } = await json(
      'account:create',
      '--name',
      'Beta',
      '--email',
      'b@beta.test',
      '--plan',
      'small',
    );
    expect(await balance(apiKey)).toEqual({ status: 200, body: { credits: 0 } });

    const second = await json('key:create', '--account', String(accountId));
    expect(second).toMatchObject({
      accountId,
      keyId: expect.any(Number),
      apiKey: expect.stringMatching(/^tis_/),
    });
    expect((await balance(second.apiKey)).status).toBe(200);

    expect(await json('credits:add', '--account', String(accountId), '--credits', '40')).toEqual({
      accountId,
      credits: 40,
    });
    expect(await balance(apiKey)).toEqual({ status: 200, body: { credits: 40 } });

    const revokedByKey = await cli('key:revoke', '--api-key', apiKey);
    expect(revokedByKey.code).toBe(0);
    const refused = await balance(apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/revoked/);
    expect(await json('key:revoke', '--key', String(second.keyId))).toEqual({
      keyId: second.keyId,
      revoked: true,
    });
    expect((await balance(second.apiKey)).status).toBe(403);

    const first = await json('secret:create', '--account', String(accountId));
    expect(first.signingSecret).toMatch(/^[0-9a-f]{64}$/);
    // The form Standard Webhooks verifiers take: whsec_ + base64 of the secret's UTF-8 bytes.
    expect(first.standardWebhooksSecret).toBe(`whsec_${Buffer.from(first.signingSecret).toString('base64')}`);
    expect(first.previousSecretValidUntil).toBeNull();
    const before = Date.now();
    const rotated = await json('secret:create', '--account', String(accountId), '--grace-hours', '2');
    expect(rotated.signingSecret).not.toBe(first.signingSecret);
    const until = Date.parse(rotated.previousSecretValidUntil);
    expect(until).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);

    const shown = await cli('account:show', '--account', String(accountId), '--json');
    expect(shown.code).toBe(0);
    const account = JSON.parse(shown.stdout);
    expect(account).toMatchObject({
      id: accountId,
      name: 'Beta',
      email: 'b@beta.test',
      plan: 'small',
      credits: 40,
      hasSigningSecret: true,
    });
    expect(account.keys).toHaveLength(2);
    for (const key of account.keys) expect(key.revokedAt).not.toBeNull();
    // Secrets are shown once, at creation, never again.
    expect(shown.stdout).not.toContain(apiKey);
    expect(shown.stdout).not.toContain(second.apiKey);
    expect(shown.stdout).not.toContain(first.signingSecret);
    expect(shown.stdout).not.toContain(rotated.signingSecret);
  }, 120_000); // eight CLI processes, each opening the database

  it.each([
    [['no:such-command'], 2, /Unknown command no:such-command/],
    [[], 2, /Usage: npm run --silent admin/],
    [['account:create', '--email', 'a@b.test', '--plan', 'small'], 1, /--name is required/],
    [
      ['account:create', '--name', 'X', '--email', 'not-an-email', '--plan', 'small'],
      1,
      /email must be an email address/,
    ],
    [
      ['account:create', '--name', 'X', '--email', 'x@y.test', '--plan', 'gold'],
      1,
      /plan must be one of demo, small/,
    ],
    [
      ['account:create', '--name', 'X', '--email', 'x@y.test', '--plan', 'small', '--credits', '2.5'],
      1,
      /--credits must be a whole number/,
    ],
    [
      ['account:create', '--name', 'X', '--email', 'x@y.test', '--plan', 'small', '--colour', 'red'],
      1,
      /Unknown option '--colour'/,
    ],
    [['account:show', '--account', '999999'], 1, /Account 999999 not found/],
    [['credits:add', '--account', '999999', '--credits', '5'], 1, /Account 999999 not found/],
    [['key:revoke', '--api-key', 'tis_unknown'], 1, /API key not found/],
    [['credits:add', '--account', '1', '--credits', '0'], 1, /--credits must be at least 1/],
    [['credits:add', '--account', '1', '--credits=-5'], 1, /--credits must be at least 1/],
  ])('refuses bad input %j with exit code %i and a message', async (args, code, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });

  it.each([['--help'], ['-h'], ['help']])(
    '%s prints the usage of every command, exit code 0',
    async (flag) => {
      const result = await cli(flag);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: npm run --silent admin -- <command>/);
      for (const command of ['account:create', 'account:list', 'credits:add', 'key:revoke']) {
        expect(result.stdout).toContain(command);
      }
    },
  );

  it('the usage separates each command from its options and lines the options up', async () => {
    const { stdout } = await cli('--help');
    expect(stdout).toMatch(/^ {2}secrets:rotate-key +\[--json\]$/m);
    expect(stdout).toMatch(/^ {2}secrets:generate-key$/m);
    const commandLines = stdout.split('\n').filter((line) => /^ {2}[a-z]+:[a-z-]+ +\S/.test(line));
    expect(commandLines.length).toBeGreaterThan(10);
    const columns = new Set(commandLines.map((line) => /^ {2}\S+ +/.exec(line)![0].length));
    expect(columns.size).toBe(1);
  });

  it.each([
    ['credits:add', '--help'],
    ['account:list', '-h'],
    ['help', 'key:revoke'],
  ])('%s %s explains one command', async (...args) => {
    const result = await cli(...args);
    expect(result.code).toBe(0);
    const command = args[0] === 'help' ? args[1] : args[0];
    expect(result.stdout).toMatch(new RegExp(`^Usage: npm run --silent admin -- ${command} `));
  });

  it('account:list lists accounts; a second account with the same email is refused', async () => {
    const first = await json('account:create', '--name', 'Dup', '--email', 'dup@x.test', '--plan', 'small');
    const again = await cli('account:create', '--name', 'Dup 2', '--email', 'DUP@x.test', '--plan', 'small');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/An account with the email DUP@x.test exists already/);
    const listed = await json('account:list');
    expect(listed.filter((a: { email: string }) => a.email.toLowerCase() === 'dup@x.test')).toEqual([
      expect.objectContaining({ id: first.accountId, name: 'Dup', plan: 'small', credits: 0 }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('tis_');
  }, 60_000);

  it('builds only when a source is newer than dist/ (npm start, worker and admin start at once)', async () => {
    const script = `${REPO_ROOT}/scripts/build-if-stale.js`;
    // The tests run on a fresh build: nothing to compile.
    const current = await run(process.execPath, [script, '--check'], { cwd: REPO_ROOT });
    expect(current.stdout.trim()).toBe('current');
    const missing = await run(process.execPath, [script, '--check', '--dist', `${REPO_ROOT}/no-such-dist`], {
      cwd: REPO_ROOT,
    });
    expect(missing.stdout.trim()).toBe('stale');
  });

  it('says on stderr that it compiles, and when it is done; nothing when dist/ is current', async () => {
    const script = `${REPO_ROOT}/scripts/build-if-stale.js`;
    const dist = mkdtempSync(join(tmpdir(), 'tis-dist-'));
    try {
      const first = await run(process.execPath, [script, '--dist', dist], { cwd: REPO_ROOT });
      expect(first.stdout).toBe('');
      expect(first.stderr).toMatch(/^compiling TypeScript \(first start or sources changed\)…\n/);
      expect(first.stderr).toMatch(/\ncompiled in \d+\.\d s\n$/);
      expect(existsSync(join(dist, 'src', 'main.js'))).toBe(true);
      const again = await run(process.execPath, [script, '--dist', dist], { cwd: REPO_ROOT });
      expect(again).toEqual({ stdout: '', stderr: '' });
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  }, 180_000);

  it('works in the documented `npm run --silent admin -- account:create ... --json` form', async () => {
    const { stdout } = await run(
      'npm',
      [
        'run',
        '--silent',
        'admin',
        '--',
        'account:create',
        '--name',
        'Npm',
        '--email',
        'npm@x.test',
        '--plan',
        'business',
        '--credits',
        '3',
        '--json',
      ],
      { cwd: REPO_ROOT, env: cleanEnv({ DATABASE_URL: database.url }), timeout: 240_000 },
    );
    const created = JSON.parse(stdout.trim());
    expect(await balance(created.apiKey)).toEqual({ status: 200, body: { credits: 3 } });
  }, 300_000);
});
