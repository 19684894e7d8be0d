import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { defaultFingerprintDirectory } from '../../../src/detection/fingerprints-loader';
import { cleanEnv, distEntry, REPO_ROOT } from '../../helpers/test-process';

const run = promisify(execFile);

/** fingerprints:check reads files only: no DATABASE_URL, no configuration. */
const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
  try {
    const { stdout, stderr } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args], {
      cwd: REPO_ROOT,
      env: cleanEnv({}),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

describe('admin fingerprints:check', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pack-check-cli-'));
    writeFileSync(join(dir, 'categories.json'), JSON.stringify({ '1': { name: 'CMS' } }));
    writeFileSync(
      join(dir, 'technologies.json'),
      JSON.stringify({
        WordPress: { cats: [1], html: '<div class="wp-(', implies: ['PHPx'] },
      }),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the built-in pack: the summary, its warnings and ok, exit code 0', async () => {
    const result = await cli('fingerprints:check', '--from', defaultFingerprintDirectory());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}technologies \d{4,}, categories \d+, groups \d+$/m);
    expect(result.stdout).toMatch(/^ {2}version sha256:[0-9a-f]{64} \(content hash\)$/m);
    expect(result.stdout).toMatch(/^ {2}0 errors, \d+ warnings/m);
    expect(result.stdout.trimEnd().split('\n').pop()).toBe('ok');
  });

  it('a bad pack: every problem named by file, technology and field, exit code 1; --json says the same', async () => {
    const result = await cli('fingerprints:check', '--from', dir);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'error: technologies.json: WordPress.implies[0]: "PHPx" is not a technology of this pack',
    );
    expect(result.stdout).toMatch(
      /^error: technologies\.json: WordPress\.html: invalid regular expression: /m,
    );
    expect(result.stdout.trimEnd().split('\n').pop()).toBe('invalid');

    const json = await cli('fingerprints:check', '--from', dir, '--json');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({ ok: false, summary: { technologies: 1, categories: 1, errors: 2 } });
    expect(report.problems).toContainEqual({
      severity: 'error',
      file: 'technologies.json',
      technology: 'WordPress',
      field: 'implies[0]',
      message: '"PHPx" is not a technology of this pack',
    });
  });

  it('a path without a pack is an invalid pack (exit code 1), saying what is missing', async () => {
    const result = await cli('fingerprints:check', '--from', join(dir, 'nowhere'));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/nowhere does not exist/);
  });

  it.each([
    [['fingerprints:check'], /--from is required/],
    [['fingerprints:check', '--form', '/tmp'], /Unknown option '--form'/],
  ])('usage errors %j exit with code 2', async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('--help explains the command', async () => {
    const result = await cli('fingerprints:check', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Usage: npm run --silent admin -- fingerprints:check --from PATH \[--json\]/,
    );
    expect(result.stdout).toMatch(/Exit code 0 when valid/);
  });
});
