/**
 * Fingerprint packs benchmark: per pack set (the built-in pack alone; with the corrections pack; with
 * an operator overlay of a few technologies too), each in its own process: load+parse ms, compile
 * ms (the prefilter tables included), RSS before and after, and the event-loop stall of a live
 * switch to that set (max and p99 of monitorEventLoopDelay while a FingerprintSource switches), for
 * the sliced compile processes use and for the whole-block compile (each step one synchronous call)
 * for comparison. Prints the load average at start and end.
 *
 *   npm run bench:fingerprints
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { DetectionEngine } from '../src/detection';
import type { PackSource } from '../src/detection/pack-files';
import { compilePack, overlayPacks, type RawPack } from '../src/detection/raw-pack';
import { FingerprintSource } from '../src/services/fingerprints/fingerprint-source';
import {
  compileSet,
  correctionsLayer,
  defaultBase,
  layerOf,
  nextTurn,
  type PackLayer,
  parseLayer,
  rawSetOf,
  setIdOf,
} from '../src/services/fingerprints/pack-set';
import { Database } from '../src/storage/database';
import { FingerprintPackRepository } from '../src/storage/fingerprint-pack.repository';

const SETS = ['builtin', 'builtin+corrections', 'builtin+corrections+overlay'] as const;
type SetName = (typeof SETS)[number];

const overlaySource = (technologies: Record<string, unknown>): PackSource => ({
  technologies: [{ name: 'technologies/a.json', text: JSON.stringify(technologies) }],
  categories: { name: 'categories.json', text: '{}' },
});

/** An operator's overlay of a few technologies. */
const OPERATOR = overlaySource({
  AcmeCMS: { cats: [1], html: ['acme-cms-marker'], implies: ['PHP'], website: 'https://acme.test' },
  AcmeShop: {
    cats: [6],
    scriptSrc: ['acme-shop\\.js\\?v=([\\d.]+)\\;version:\\1'],
    website: 'https://a.test',
  },
  AcmeCDN: { cats: [31], headers: { 'X-Acme-CDN': '' }, website: 'https://a.test' },
});

function layersOf(name: SetName): PackLayer[] {
  const layers = [defaultBase(undefined)];
  const corrections = correctionsLayer(true, layers[0]);
  if (name !== 'builtin' && corrections) layers.push(corrections);
  if (name === 'builtin+corrections+overlay') layers.push(layerOf('acme', 'overlay', OPERATOR));
  return layers;
}

/** The compile as it was before slicing: each step one synchronous block, turns between steps. */
async function compileWhole(layers: readonly PackLayer[], version: string): Promise<DetectionEngine> {
  const raw = await rawSetOf(layers);
  const fingerprints = compilePack(raw);
  await nextTurn();
  const engine = new DetectionEngine(fingerprints, version);
  engine.analyze({ url: 'http://warm-up.invalid/', html: '<html><body></body></html>' });
  await nextTurn();
  fingerprints.technologyBySlug('');
  return engine;
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
const ms = (ns: number) => Math.round(ns / 1e6);

/** A live switch of a FingerprintSource (SQLite) from a tiny set to `layers`: the loop's delay meanwhile. */
async function liveSwitch(layers: PackLayer[], compile: typeof compileSet): Promise<Switch> {
  const dir = mkdtempSync(join(tmpdir(), 'fp-bench-'));
  const db = await Database.open(`sqlite:${join(dir, 'bench.db')}`);
  try {
    const rows = new FingerprintPackRepository(db);
    const tiny = [layerOf('tiny', 'base', overlaySource({ Tiny: { cats: [1], html: ['tiny-marker'] } }))];
    const source = await FingerprintSource.start({
      packs: rows,
      defaultLayers: () => tiny,
      pollSeconds: 0,
      compile,
      logger: { info() {}, warn() {}, error() {} },
    });
    const now = new Date();
    const ids: number[] = [];
    for (const layer of layers)
      ids.push((await rows.storePack({ ...layer, technologies: 0, loadedAt: now, loadedBy: 'bench' })).id);
    const version = setIdOf(layers);
    await rows.activate(version, ids, now, 'bench');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    const started = performance.now();
    delay.enable();
    await source.refresh();
    delay.disable();
    const wallMs = Math.round(performance.now() - started);
    source.stop();
    if (source.version !== version)
      throw new Error(`the switch did not happen: ${source.lastError?.message}`);
    return { maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)), wallMs };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Switch {
  maxMs: number;
  p99Ms: number;
  wallMs: number;
}
interface Row {
  set: SetName;
  technologies: number;
  loadParseMs: number;
  compileMs: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  switchWhole: Switch;
  switchSliced: Switch;
}

async function measure(name: SetName): Promise<void> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let started = performance.now();
  const layers = layersOf(name);
  const parsed = layers.map(parseLayer);
  const raw: RawPack = overlayPacks(parsed[0], ...parsed.slice(1));
  const loadParseMs = performance.now() - started;
  started = performance.now();
  const fingerprints = compilePack(raw);
  void fingerprints.markupLiterals;
  for (const set of Object.values(fingerprints.textPatterns)) set.table.build();
  const compileMs = performance.now() - started;
  const rssAfter = process.memoryUsage().rss;
  const whole = await liveSwitch(layers, compileWhole);
  const sliced = await liveSwitch(layers, compileSet);
  console.log(
    JSON.stringify({
      set: name,
      technologies: fingerprints.technologies.length,
      loadParseMs: Math.round(loadParseMs),
      compileMs: Math.round(compileMs),
      rssBeforeMb: mb(rssBefore),
      rssAfterMb: mb(rssAfter),
      switchWhole: whole,
      switchSliced: sliced,
    }),
  );
}

async function main(): Promise<void> {
  const only = process.argv[2] as SetName | undefined;
  if (only) return measure(only);
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  for (const name of SETS) {
    const out = execFileSync(process.execPath, ['--expose-gc', __filename, name], { encoding: 'utf8' });
    const row = JSON.parse(out.trim().split('\n').at(-1)!) as Row;
    console.log(
      `${row.set}: ${row.technologies} technologies; load+parse ${row.loadParseMs} ms, compile ${row.compileMs} ms; ` +
        `RSS ${row.rssBeforeMb} -> ${row.rssAfterMb} MB; live switch stall max/p99: ` +
        `whole ${row.switchWhole.maxMs}/${row.switchWhole.p99Ms} ms (${row.switchWhole.wallMs} ms wall), ` +
        `sliced ${row.switchSliced.maxMs}/${row.switchSliced.p99Ms} ms (${row.switchSliced.wallMs} ms wall)`,
    );
  }
  console.log(
    `load average at end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
