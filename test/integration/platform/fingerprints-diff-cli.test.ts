import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { ACME_PAGE, startSampleSites, WORDPRESS_PAGE, type SampleSites } from '../../helpers/sample-sites';
import { cleanEnv, distEntry, REPO_ROOT } from '../../helpers/test-process';
import { startTestService, TestService } from '../../helpers/test-service';

const run = promisify(execFile);

/**
 * fingerprints:diff over a real database (SQLite, or MariaDB with TEST_DATABASE_URL) holding the
 * samples and technologies of four analysed sites (three WordPress blogs, one Acme page): a pack
 * that breaks WordPress's patterns and adds Acme Pages, in text and --json; a bad pack refused.
 */
describe('admin fingerprints:diff', () => {
  let service: TestService;
  let sites: SampleSites;
  let dir: string;

  const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [distEntry('src/admin/cli.js'), ...args], {
        cwd: REPO_ROOT,
        env: cleanEnv({ DATABASE_URL: service.running.services.config.DATABASE_URL, LOG_LEVEL: 'warn' }),
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  const writePack = (name: string, technologies: object): string => {
    const path = join(dir, name);
    rmSync(path, { recursive: true, force: true });
    mkdirSync(path);
    writeFileSync(join(path, 'categories.json'), JSON.stringify({ '1': { name: 'CMS', priority: 1 } }));
    writeFileSync(join(path, 'technologies.json'), JSON.stringify(technologies));
    return path;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pack-diff-cli-'));
    sites = await startSampleSites([WORDPRESS_PAGE, WORDPRESS_PAGE, WORDPRESS_PAGE, ACME_PAGE]);
    // The fixtures must be analysed, not fetched fast: a loaded CI machine once took longer than
    // FAST_SETTINGS' 1.5 s for a page, and every test of the file failed on the set-up.
    service = await startTestService({
      ...FAST_SETTINGS,
      FETCH_TIMEOUT_MS: '30000',
      FETCH_CONNECT_TIMEOUT_MS: '10000',
    });
    for (const url of sites.urls) {
      const analysis = await service.running.services.analyzer.analyzePage(url);
      expect(analysis.ok ? 'analysed' : analysis.errors).toBe('analysed');
    }
  });
  afterAll(async () => {
    await service?.stop();
    await sites?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // WordPress as a pack that looks for a class no blog has; Acme Pages by its generator.
  const candidate = () =>
    writePack('candidate', {
      WordPress: { cats: [1], html: '<div class="wordpress-only-in-tests"' },
      'Acme Pages': { cats: [1], meta: { generator: '^Acme Pages ([\\d.]+)\\;version:\\1' } },
    });

  it('text: added, changed (fields) with the stored sites each touches, and the trend breaks on the samples', async () => {
    const result = await cli('fingerprints:diff', '--from', candidate());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^current {4}fp-[0-9a-f]{12} \(\d{4,} technologies\)$/m);
    expect(out).toMatch(
      /^candidate {2}sha256:[0-9a-f]{64} \(\d{4,} technologies\): .* laid over the current fingerprints$/m,
    );
    expect(out).toContain('added 1\n  + Acme Pages (acme-pages): 0 stored sites\n');
    expect(out).toContain('removed 0\n');
    expect(out).toMatch(
      /^ {2}~ WordPress \(wordpress\): [$A-Za-z, ]*\bhtml\b[$A-Za-z, ]*\bmeta\b[$A-Za-z, ]*; 3 stored sites$/m,
    );
    expect(out).toMatch(
      /^samples 4 re-run: \d+ trend breaks? \(change over 20%, at least 3 sites before or after\)$/m,
    );
    expect(out).toContain('  ! wordpress (WordPress) falls 3 -> 0 (-100%)');
    // One Acme page is under --min-sites: its rise is not a trend break.
    expect(out).not.toContain('acme-pages (Acme Pages) rises');
  });

  it('--json, with --min-sites 1 and --share 0.5: the same report as data, the rise from none flagged', async () => {
    const result = await cli(
      'fingerprints:diff',
      '--from',
      candidate(),
      '--json',
      '--min-sites',
      '1',
      '--share',
      '0.5',
    );
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      ok: true,
      mode: 'overlay',
      current: { version: expect.stringMatching(/^fp-[0-9a-f]{12}$/) },
      added: [{ name: 'Acme Pages', slug: 'acme-pages', storedSites: 0 }],
      removed: [],
      samples: { read: 4, failed: 0, options: { share: 0.5, minSites: 1 } },
    });
    expect(report.changed).toEqual([
      expect.objectContaining({ name: 'WordPress', slug: 'wordpress', storedSites: 3 }),
    ]);
    expect(report.samples.flags).toContainEqual({
      slug: 'wordpress',
      name: 'WordPress',
      before: 3,
      after: 0,
      direction: 'falls',
      change: -1,
    });
    expect(report.samples.flags).toContainEqual({
      slug: 'acme-pages',
      name: 'Acme Pages',
      before: 0,
      after: 1,
      direction: 'rises',
      change: null,
    });
  });

  it('--replace: the pack alone is the candidate, everything else removed (with the stored sites it had)', async () => {
    const result = await cli('fingerprints:diff', '--from', candidate(), '--replace', '--json');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.mode).toBe('replace');
    expect(report.candidate.technologies).toBe(2);
    expect(report.removed).toContainEqual({ name: 'PHP', slug: 'php', storedSites: 4 });
    expect(report.samples.flags).toContainEqual(
      expect.objectContaining({ slug: 'php', before: 4, after: 0, direction: 'falls' }),
    );
  });

  it('a bad pack is refused with its problems, exit code 1, checked as an overlay over the active set', async () => {
    // WordPress is the active set's: an overlay may name it; category 99999 is nobody's.
    const bad = writePack('bad', { Broken: { cats: [99999], html: '<div class="(', implies: 'WordPress' } });
    const result = await cli('fingerprints:diff', '--from', bad);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      'error: technologies.json: Broken.cats[0]: 99999 is not a category of this pack',
    );
    expect(result.stdout).toMatch(/^error: technologies\.json: Broken\.html: invalid regular expression: /m);
    expect(result.stdout.trimEnd().split('\n').pop()).toBe('invalid');
    const json = await cli('fingerprints:diff', '--from', bad, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, summary: { errors: 2 } });
  });

  it('fingerprints:load lists the trend breaks of the switch it made, and how to go back', async () => {
    const result = await cli('fingerprints:load', '--from', candidate(), '--name', 'candidate');
    expect(result.code).toBe(0);
    const previous = /active version fp-[0-9a-f]{12} \(was (fp-[0-9a-f]{12})\)/.exec(result.stdout)?.[1];
    expect(previous).toBeDefined();
    expect(result.stdout).toMatch(
      new RegExp(
        `^samples 4 re-run: \\d+ trend breaks? \\(fingerprints:activate --version ${previous} goes back\\)$`,
        'm',
      ),
    );
    expect(result.stdout).toContain('  ! wordpress (WordPress) falls 3 -> 0 (-100%)');
    const back = await cli('fingerprints:activate', '--version', previous!);
    expect(back.code).toBe(0);
  });

  it.each([
    [['fingerprints:diff'], /--from is required/],
    [['fingerprints:diff', '--from', '/x', '--share', 'lots'], /--share must be a share from 0 to 10/],
    [['fingerprints:diff', '--from', '/x', '--min-sites', '1.5'], /--min-sites must be a whole number/],
  ])('usage errors exit with code 2: %j', async (args, message) => {
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});
