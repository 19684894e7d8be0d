import { packageMap, type Fingerprints, type PackageMapEntry } from '../../detection';
import { cpeProductKey, osvProductKey } from './vuln-records';

/**
 * The CPE 2.3 name of a technology, the one place exposure reads it: the active fingerprints'
 * `cpe`, which the compile already takes from the project's CPE table where it names one
 * (src/detection/cpe-map.ts).
 */
export function cpeFor(slug: string, fingerprints: Fingerprints): string | null {
  return fingerprints.technologyBySlug(slug)?.cpe ?? null;
}

/** The product keys vulnerability records are stored under for a technology (CPE vendor:product, OSV package). */
export function productKeysFor(
  slug: string,
  fingerprints: Fingerprints,
  packages: ReadonlyMap<string, PackageMapEntry> = packageMap(),
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
  packages: ReadonlyMap<string, PackageMapEntry> = packageMap(),
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
