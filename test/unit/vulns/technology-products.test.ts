import { loadFingerprints } from '../../../src/detection';
import {
  parsePackageMap,
  productKeysFor,
  projectPackageMap,
  technologiesForProduct,
} from '../../../src/services/vulns/technology-products';

describe('technology → vulnerability products', () => {
  const fingerprints = loadFingerprints();

  it('maps every package-map entry to a technology of the fingerprints', () => {
    const map = projectPackageMap();
    expect(map.size).toBeGreaterThan(50);
    const names = new Set(fingerprints.technologies.map((t) => t.name));
    expect([...map.keys()].filter((name) => !names.has(name))).toEqual([]);
  });

  it('reads comments, refuses malformed entries naming them', () => {
    const map = parsePackageMap(
      JSON.stringify({
        $comment: 'x',
        jQuery: { purl: 'pkg:npm/jquery', osv: { ecosystem: 'npm', name: 'jquery' } },
      }),
    );
    expect([...map.keys()]).toEqual(['jQuery']);
    expect(() => parsePackageMap(JSON.stringify({ Lodash: { purl: 'lodash' } }))).toThrow(/Lodash/);
  });

  it('gives a technology its CPE vendor:product and OSV package, and back', () => {
    expect(productKeysFor('jquery', fingerprints)).toEqual(['cpe:jquery:jquery', 'osv:npm:jquery']);
    expect(productKeysFor('wordpress', fingerprints)).toEqual(['cpe:wordpress:wordpress']);
    // Joomla's CPE escapes its "!": the key keeps the escape, as NVD's criteria write it.
    expect(productKeysFor('joomla', fingerprints)).toEqual(['cpe:joomla:joomla\\!']);
    expect(technologiesForProduct('osv:npm:lodash', fingerprints)).toEqual(['lodash']);
    expect(technologiesForProduct('cpe:jquery:jquery', fingerprints)).toEqual(['jquery']);
  });
});
