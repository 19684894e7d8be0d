import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DetectionEngine } from '../../../../src/detection';
import { readPack } from '../../../../src/detection/pack-files';
import { EventBus } from '../../../../src/platform/event-bus';
import {
  FingerprintPackService,
  InvalidPackError,
} from '../../../../src/services/fingerprints/fingerprint-pack.service';
import { FingerprintSource } from '../../../../src/services/fingerprints/fingerprint-source';
import {
  compileSet,
  correctionsLayer,
  layerOf,
  type PackLayer,
  setIdOf,
} from '../../../../src/services/fingerprints/pack-set';
import { Database } from '../../../../src/storage/database';
import { FingerprintPackRepository } from '../../../../src/storage/fingerprint-pack.repository';

const CATEGORIES = { '1': { name: 'CMS', priority: 1 }, '2': { name: 'Programming languages' } };
const BASE = {
  PHP: { cats: [2], headers: { 'X-Powered-By': '^php/?([\\d.]+)?\\;version:\\1' } },
  WordPress: { cats: [1], html: ['wp-content-marker'], implies: ['PHP'] },
};
/** An overlay adding a technology that implies one of the base's. */
const ADDS_ACME = { AcmeCMS: { cats: [1], html: ['acme-cms-marker'], implies: ['PHP'] } };

const page = (html: string) => ({ url: 'http://site.test/', html });
const found = (engine: DetectionEngine, html: string) =>
  engine.analyze(page(html)).technologies.map((t) => t.name);

describe('FingerprintSource and fingerprint packs', () => {
  let dir: string;
  let db: Database;
  let rows: FingerprintPackRepository;
  let base: PackLayer;
  const sources: FingerprintSource[] = [];

  const pack = (name: string, technologies: unknown, categories: unknown = {}): string => {
    const root = join(dir, name);
    mkdirSync(join(root, 'technologies'), { recursive: true });
    writeFileSync(join(root, 'technologies', 'a.json'), JSON.stringify(technologies));
    writeFileSync(join(root, 'categories.json'), JSON.stringify(categories));
    return root;
  };
  // A corrections pack of the test's own: the project's names upstream technologies this small base lacks.
  const correctionsDir = () => join(dir, 'corrections');
  const defaults = () => {
    const corrections = correctionsLayer(true, base, correctionsDir());
    return [base, ...(corrections ? [corrections] : [])];
  };
  const start = async (compile?: (l: readonly PackLayer[], v: string) => Promise<DetectionEngine>) => {
    const source = await FingerprintSource.start({
      packs: rows,
      defaultLayers: defaults,
      pollSeconds: 0,
      ...(compile ? { compile } : {}),
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    sources.push(source);
    return source;
  };
  const serviceOf = (source: FingerprintSource) =>
    new FingerprintPackService(rows, source, new EventBus(), defaults, {
      operatorAccountIds: ['1'],
      correctionsDir: correctionsDir(),
    });

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fp-source-'));
    db = await Database.open(`sqlite:${join(dir, 'test.db')}`);
    rows = new FingerprintPackRepository(db);
    base = layerOf('builtin', 'base', readPack(pack('base', BASE, CATEGORIES)), 'test-base@1');
    pack('corrections', { PHP: { ...(BASE as Record<string, object>).PHP, $comment: 'a test correction' } });
  });
  afterEach(async () => {
    for (const source of sources.splice(0)) source.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts on the default set when none was ever activated, its id derived from its packs', async () => {
    const source = await start();
    expect(source.version).toBe(setIdOf(defaults()));
    expect(source.version).toMatch(/^fp-[0-9a-f]{12}$/);
    expect(found(source.current(), 'wp-content-marker')).toEqual(
      expect.arrayContaining(['WordPress', 'PHP']),
    );
  });

  it('switches to a loaded overlay; an engine taken before the switch keeps its version', async () => {
    const source = await start();
    const inFlight = source.current();
    const loaded = await serviceOf(source).load({
      path: pack('acme', ADDS_ACME),
      replace: false,
      by: 'test',
    });
    await source.refresh();
    expect(source.version).toBe(loaded.version);
    expect(loaded.version).not.toBe(loaded.previousVersion);
    expect(found(source.current(), 'acme-cms-marker')).toEqual(expect.arrayContaining(['AcmeCMS', 'PHP']));
    // The analysis that started before the switch finishes on its own engine.
    expect(inFlight.version).toBe(loaded.previousVersion);
    expect(found(inFlight, 'acme-cms-marker')).toEqual([]);
    // A process starting now uses the stored active set.
    const later = await start();
    expect(later.version).toBe(loaded.version);
    expect(found(later.current(), 'acme-cms-marker')).toContain('AcmeCMS');
  });

  it('swaps only when the compile is done: work started meanwhile gets the running engine', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let gated = false;
    const source = await start(async (layers, version) => {
      if (gated) await gate;
      return compileSet(layers, version);
    });
    const before = source.version;
    gated = true;
    await serviceOf(source).load({ path: pack('acme', ADDS_ACME), replace: false, by: 'test' });
    const switching = source.refresh();
    expect(source.current().version).toBe(before);
    release();
    await switching;
    expect(source.current().version).not.toBe(before);
  });

  it('keeps the running set when the new one fails to compile, and says why', async () => {
    let fail = false;
    const source = await start(async (layers, version) => {
      if (fail) throw new Error('out of memory while compiling');
      return compileSet(layers, version);
    });
    const before = source.version;
    fail = true;
    const loaded = await serviceOf(source).load({
      path: pack('acme', ADDS_ACME),
      replace: false,
      by: 'test',
    });
    await source.refresh();
    expect(source.version).toBe(before);
    expect(source.lastError).toMatchObject({
      version: loaded.version,
      message: 'out of memory while compiling',
    });
    // The failed set is not compiled again at every poll; a set that works is taken.
    fail = false;
    await source.refresh();
    expect(source.version).toBe(before);
    await serviceOf(source).unload('acme', 'test');
    await source.refresh();
    expect(source.version).toBe(setIdOf(defaults()));
  });

  it('refuses a bad pack whole, naming file, technology and field, and changes nothing', async () => {
    const source = await start();
    const packs = serviceOf(source);
    const bad = pack('bad', {
      BrokenCMS: { cats: [1], html: ['(unclosed'], implies: ['NoSuchTech'] },
      FineCMS: { cats: [99] },
    });
    const refused = await packs.load({ path: bad, replace: false, by: 'test' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidPackError);
    const problems = (refused as InvalidPackError).problems.filter((p) => p.severity === 'error');
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'technologies/a.json', technology: 'BrokenCMS', field: 'html[0]' }),
        expect.objectContaining({ technology: 'BrokenCMS', field: 'implies[0]' }),
        expect.objectContaining({ technology: 'FineCMS', field: 'cats[0]' }),
      ]),
    );
    expect((refused as Error).message).toContain('BrokenCMS.html[0]');
    expect(await rows.activeSet()).toBeNull();
    expect((await packs.status()).version).toBe(source.version);
  });

  it('rolls back to an earlier set, and status lists the packs of the active one', async () => {
    const source = await start();
    const packs = serviceOf(source);
    const first = await packs.load({ path: pack('acme', ADDS_ACME), replace: false, by: 'op' });
    const second = await packs.load({
      path: pack('beta', { BetaShop: { cats: [1], html: ['beta-marker'] } }),
      replace: false,
      by: 'op',
    });
    let status = await packs.status();
    expect(status.version).toBe(second.version);
    expect(status.packs.map((p) => [p.name, p.role])).toEqual([
      ['builtin', 'base'],
      ['corrections', 'overlay'],
      ['acme', 'overlay'],
      ['beta', 'overlay'],
    ]);
    expect(status.packs[0]).toMatchObject({ version: 'test-base@1', technologies: 2, loadedBy: 'op' });
    await packs.activate(first.version, 'op');
    await source.refresh();
    expect(source.version).toBe(first.version);
    status = await packs.status();
    expect(status.packs.map((p) => p.name)).not.toContain('beta');
    expect(status.history.map((h) => h.version).slice(0, 3)).toEqual([
      first.version,
      second.version,
      first.version,
    ]);
  });
});
