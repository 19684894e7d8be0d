import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/platform/config';
import { Database, openOptions, workerOpenOptions } from '../../../src/storage/database';
import { MALLOC_TUNING, mallocTuned } from '../../../src/platform/malloc-tuning';

/**
 * What keeps a separate worker's memory bounded after large list files (README, Lead lists): its
 * own SQLite page cache, and the malloc settings its npm script starts it with.
 */
describe('worker process memory settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'worker-memory-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cacheSizeOf(options: ReturnType<typeof openOptions>, file: string): Promise<number> {
    const db = await Database.open(`sqlite:${join(dir, file)}`, options);
    try {
      const [row] = (await db.query('PRAGMA cache_size')) as { cache_size: number }[];
      return Number(row.cache_size);
    } finally {
      await db.close();
    }
  }

  it('opens SQLite with WORKER_SQLITE_CACHE_MB in a worker and SQLITE_CACHE_MB in the API', async () => {
    const config = loadConfig({ SQLITE_CACHE_MB: '48', WORKER_SQLITE_CACHE_MB: '12' });
    // A negative cache_size is a size in KiB.
    expect(await cacheSizeOf(workerOpenOptions(config), 'worker.db')).toBe(-12 * 1024);
    expect(await cacheSizeOf(openOptions(config), 'api.db')).toBe(-48 * 1024);
    expect(loadConfig({}).WORKER_SQLITE_CACHE_MB).toBe(16);
  });

  it('rejects a worker cache outside its bounds, naming the setting', () => {
    expect(() => loadConfig({ WORKER_SQLITE_CACHE_MB: '1' })).toThrow(/WORKER_SQLITE_CACHE_MB/);
    expect(() => loadConfig({ WORKER_SQLITE_CACHE_MB: 'lots' })).toThrow(/WORKER_SQLITE_CACHE_MB/);
  });

  it('starts the API and the worker with the malloc settings, overridable from the environment', () => {
    const scripts = (
      JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const [script, entry] of [
      ['start', 'dist/src/main.js'],
      ['worker', 'dist/src/worker-main.js'],
    ]) {
      const command = scripts[script].split('&&').pop()!.trim();
      const settings = Object.entries(MALLOC_TUNING).map(([name, value]) => `${name}=\${${name}:-${value}}`);
      // exec: node takes the shell's place, so npm's signals reach it (npm-scripts.test.ts).
      expect(command).toBe(`${settings.join(' ')} exec node ${entry}`);
    }
  });

  it('tells whether a process has the settings', () => {
    expect(mallocTuned({ ...MALLOC_TUNING })).toBe(true);
    expect(mallocTuned({ MALLOC_ARENA_MAX: '2' })).toBe(false);
    expect(mallocTuned({})).toBe(false);
  });
});
