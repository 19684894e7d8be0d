import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';

/**
 * What `npm ci` warns about, read from the lock file it installs: a package whose engines field
 * excludes the Node the README promises (EBADENGINE), or whose peer dependency range excludes the
 * version installed beside it (ERESOLVE "overriding peer dependency"). A clean install of this
 * project must print neither.
 */
interface LockedPackage {
  version?: string;
  hasInstallScript?: boolean;
  engines?: { node?: string } | string[];
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  dev?: boolean;
  optional?: boolean;
}

const root = join(__dirname, '..', '..', '..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockedPackage>;
};
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  allowScripts?: Record<string, boolean>;
};
const packages = Object.entries(lock.packages).filter(([path]) => path !== '');

/** The copy of `name` a package at `path` resolves to (its own node_modules first, then upwards). */
function resolved(path: string, name: string): LockedPackage | undefined {
  let dir = path;
  for (;;) {
    const found = lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`];
    if (found) return found;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf('/node_modules/');
    dir = cut < 0 ? '' : dir.slice(0, cut);
  }
}

describe('a clean install prints no warning of ours', () => {
  const oldestNode = semver.minVersion(manifest.engines.node)!.version;

  it(`every package accepts Node ${oldestNode}, the oldest the README promises (no EBADENGINE)`, () => {
    const refused = packages
      .filter(([, p]) => !Array.isArray(p.engines) && p.engines?.node)
      .filter(([, p]) => !semver.satisfies(oldestNode, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });

  it('every peer dependency is satisfied by the version installed (no peer range warnings)', () => {
    const unmet: string[] = [];
    for (const [path, p] of packages) {
      for (const [peer, range] of Object.entries(p.peerDependencies ?? {})) {
        const installed = resolved(path, peer);
        if (!installed) continue; // an absent peer is optional or reported by npm ls, not a range warning
        if (!semver.satisfies(installed.version ?? '0.0.0', range, { includePrerelease: true })) {
          unmet.push(`${path} wants ${peer}@${range}, installed ${installed.version}`);
        }
      }
    }
    expect(unmet).toEqual([]);
  });

  it('every package with an install script is reviewed in allowScripts (npm 11 lists the others)', () => {
    const reviewed = manifest.allowScripts ?? {};
    const unreviewed = packages
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .filter((name) => !(name in reviewed));
    expect(unreviewed).toEqual([]);
  });
});
