import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PackageURL } from 'packageurl-js';
import { projectRoot } from './project-root';

/**
 * The technology → package mapping (data/packages/package-map.json): for a technology that is a
 * published package (a browser library on npm, a Python or Ruby server), its Package URL without a
 * version and its OSV ecosystem and package name. The SBOM gives components their purl from it; the
 * vulnerability import matches OSV records through it.
 */
export interface PackageMapEntry {
  /** Package URL without version, e.g. pkg:npm/jquery. */
  purl: string;
  osv: { ecosystem: string; name: string };
}

export const PACKAGE_MAP_FILE = join(projectRoot(), 'data', 'packages', 'package-map.json');

/** The mapping's entries by technology name, read from `file` (keys starting with `$` are comments). */
export function readPackageMap(file: string = PACKAGE_MAP_FILE): ReadonlyMap<string, PackageMapEntry> {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, PackageMapEntry>;
  return new Map(Object.entries(parsed).filter(([name]) => !name.startsWith('$')));
}

let mapping: ReadonlyMap<string, PackageMapEntry> | undefined;

/** The project's mapping (read once). */
export function packageMap(): ReadonlyMap<string, PackageMapEntry> {
  mapping ??= readPackageMap();
  return mapping;
}

/** The technology's package, when it is one. */
export function packageOf(name: string): PackageMapEntry | undefined {
  return packageMap().get(name);
}

/** The technology's Package URL with `version` (without one when it is ''), or null when it is no package. */
export function purlOf(name: string, version: string): string | null {
  const entry = packageOf(name);
  if (!entry) return null;
  const base = PackageURL.fromString(entry.purl);
  return new PackageURL(
    base.type,
    base.namespace,
    base.name,
    version || undefined,
    undefined,
    undefined,
  ).toString();
}
