import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

import { locateFingerprintFiles } from './fingerprints-loader';

/** One file of a pack, as read: its name relative to the pack's root, and its text. */
export interface PackFile {
  name: string;
  text: string;
}

/**
 * A fingerprint pack's files, read but not parsed: what `validatePack` checks. The files are the ones
 * the loader would read (the same lookup), so a pack that validates is the pack that loads.
 */
export interface PackSource {
  technologies: PackFile[];
  categories: PackFile;
  /** groups.json when the pack has one (the loader then uses the bundled copy). */
  groups?: PackFile;
  /** pack.json at the pack's root, when present: declares the pack's version. */
  manifest?: PackFile;
}

/** The manifest's name: webappanalyzer's layout has none, so a pack may add one to declare its version. */
export const PACK_MANIFEST = 'pack.json';

/**
 * Reads a pack (a directory in either layout, or a technologies.json file). Throws an Error naming
 * what is missing when the loader would not find the files; the content is not checked here.
 */
export function readPack(path: string): PackSource {
  const files = locateFingerprintFiles(path);
  // Names are shown relative to the directory the operator named (technologies/w.json), or to the
  // categories' directory when a technologies.json file was named.
  const root = files.technologies.length === 1 && files.technologies[0] === path ? dirname(path) : path;
  const read = (file: string): PackFile => ({
    name: relative(root, file).split(sep).join('/') || file,
    text: readFileSync(file, 'utf8'),
  });
  const manifest = join(root, PACK_MANIFEST);
  return {
    technologies: files.technologies.map(read),
    categories: read(files.categories),
    ...(files.groups ? { groups: read(files.groups) } : {}),
    ...(existsSync(manifest) ? { manifest: read(manifest) } : {}),
  };
}
