import { readFileSync } from 'node:fs';
import { PackageURL } from 'packageurl-js';

import { defaultFingerprintDirectory } from '../../../src/detection';
import { PACKAGE_MAP_FILE, purlOf, readPackageMap } from '../../../src/detection/package-map';
import { readPack } from '../../../src/detection/pack-files';
import { parsePack } from '../../../src/detection/raw-pack';

const mapping = readPackageMap();
const upstream = parsePack(readPack(defaultFingerprintDirectory()));

/** OSV ecosystem → purl type, and how OSV writes a namespaced name. */
const ECOSYSTEMS: Record<string, { type: string; name(p: PackageURL): string }> = {
  npm: { type: 'npm', name: (p) => (p.namespace ? `${p.namespace}/${p.name}` : p.name) },
  PyPI: { type: 'pypi', name: (p) => p.name },
  RubyGems: { type: 'gem', name: (p) => p.name },
  Go: { type: 'golang', name: (p) => (p.namespace ? `${p.namespace}/${p.name}` : p.name) },
  Packagist: { type: 'composer', name: (p) => `${p.namespace}/${p.name}` },
  Maven: { type: 'maven', name: (p) => `${p.namespace}:${p.name}` },
};

describe('the package mapping (data/packages/package-map.json)', () => {
  it('maps each technology of the built-in pack once', () => {
    expect(mapping.size).toBeGreaterThan(50);
    const keys = [...readFileSync(PACKAGE_MAP_FILE, 'utf8').matchAll(/^ {2}"([^"$][^"]*)": \{$/gm)].map(
      (m) => m[1],
    );
    expect(keys.length).toBe(mapping.size);
    expect(new Set(keys).size).toBe(keys.length);
    for (const name of mapping.keys()) expect([name, name in upstream.technologies]).toEqual([name, true]);
  });

  it('gives a versionless purl whose type and name agree with the OSV ecosystem and name', () => {
    for (const [name, entry] of mapping) {
      const purl = PackageURL.fromString(entry.purl);
      const ecosystem = ECOSYSTEMS[entry.osv.ecosystem];
      expect([name, ecosystem !== undefined]).toEqual([name, true]);
      expect([name, purl.version, purl.type]).toEqual([name, undefined, ecosystem.type]);
      expect([name, ecosystem.name(purl)]).toEqual([name, entry.osv.name]);
      expect(purl.toString()).toBe(entry.purl);
    }
  });

  it('writes the purl with the detected version, and null for a technology that is no package', () => {
    expect(purlOf('jQuery', '3.7.1')).toBe('pkg:npm/jquery@3.7.1');
    expect(purlOf('Angular', '17.0.0')).toBe('pkg:npm/%40angular/core@17.0.0');
    expect(purlOf('Django', '')).toBe('pkg:pypi/django');
    expect(purlOf('Google Analytics', '4')).toBeNull();
  });
});
