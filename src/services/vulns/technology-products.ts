import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Fingerprints } from '../../detection';
import { cpeProductKey, osvProductKey } from './vuln-records';

/** One entry of data/packages/package-map.json: a technology's package (purl) and its OSV name. */
export interface PackageMapEntry {
  purl: string;
  osv: { ecosystem: string; name: string };
}

/** The project's root: the nearest folder above this file with a package.json (src/ or dist/src/). */
function projectRoot(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return join(__dirname, '..', '..', '..');
  }
}

export const PACKAGE_MAP_PATH = join(projectRoot(), 'data', 'packages', 'package-map.json');

/**
 * The package map by technology name, checked entry by entry (a malformed entry names itself);
 * keys starting with `$` are comments. (main's src/detection/package-map.ts reads the same file for
 * the SBOM: on merge, this reader gives way to its readPackageMap/packageOf.)
 */
export function parsePackageMap(text: string): Map<string, PackageMapEntry> {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('package map: not an object of technology names');
  const out = new Map<string, PackageMapEntry>();
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (name.startsWith('$')) continue;
    const e = entry as Partial<PackageMapEntry> | null;
    if (
      typeof e?.purl !== 'string' ||
      !e.purl.startsWith('pkg:') ||
      typeof e.osv?.ecosystem !== 'string' ||
      typeof e.osv.name !== 'string'
    )
      throw new Error(`package map: ${name} needs purl (pkg:…) and osv {ecosystem, name}`);
    out.set(name, { purl: e.purl, osv: { ecosystem: e.osv.ecosystem, name: e.osv.name } });
  }
  return out;
}

let packageMap: Map<string, PackageMapEntry> | null = null;

/** The project's package map (read once). */
export function projectPackageMap(): Map<string, PackageMapEntry> {
  packageMap ??= parsePackageMap(readFileSync(PACKAGE_MAP_PATH, 'utf8'));
  return packageMap;
}

/**
 * The CPE 2.3 name of a technology, the one place exposure reads it: today the active
 * fingerprints' `cpe`; on merge with the project CPE table (issue 33 §1, main's
 * src/detection/cpe-map.ts) this becomes `cpeOf(technology.name, technology.cpe)`.
 */
export function cpeFor(slug: string, fingerprints: Fingerprints): string | null {
  return fingerprints.technologyBySlug(slug)?.cpe ?? null;
}

/** The product keys vulnerability records are stored under for a technology (CPE vendor:product, OSV package). */
export function productKeysFor(
  slug: string,
  fingerprints: Fingerprints,
  packages: Map<string, PackageMapEntry> = projectPackageMap(),
): string[] {
  const keys: string[] = [];
  const cpe = cpeFor(slug, fingerprints);
  const cpeKey = cpe ? cpeProductKey(cpe) : null;
  if (cpeKey) keys.push(cpeKey);
  const name = fingerprints.technologyBySlug(slug)?.name;
  const pkg = name ? packages.get(name) : undefined;
  if (pkg) keys.push(osvProductKey(pkg.osv.ecosystem, pkg.osv.name));
  return keys;
}

/**
 * The technologies (slugs) a product key stands for: the reverse of productKeysFor over the
 * active fingerprints and the package map.
 */
export function technologiesForProduct(
  product: string,
  fingerprints: Fingerprints,
  packages: Map<string, PackageMapEntry> = projectPackageMap(),
): string[] {
  const slugs: string[] = [];
  if (product.startsWith('cpe:')) {
    for (const t of fingerprints.technologies) {
      const cpe = cpeFor(t.slug, fingerprints);
      if (cpe && cpeProductKey(cpe) === product) slugs.push(t.slug);
    }
  } else {
    for (const [name, entry] of packages)
      if (osvProductKey(entry.osv.ecosystem, entry.osv.name) === product) {
        const t = fingerprints.technologies.find((x) => x.name === name);
        if (t) slugs.push(t.slug);
      }
  }
  return slugs;
}
