import { loadFingerprints } from '../../../src/detection';
import { productKeysFor, technologiesForProduct } from '../../../src/services/vulns/technology-products';

describe('technology → vulnerability products', () => {
  const fingerprints = loadFingerprints();

  it('gives a technology its CPE vendor:product and OSV package, and back', () => {
    expect(productKeysFor('jquery', fingerprints)).toEqual(['cpe:jquery:jquery', 'osv:npm:jquery']);
    expect(productKeysFor('wordpress', fingerprints)).toEqual(['cpe:wordpress:wordpress']);
    // Joomla's CPE escapes its "!": the key keeps the escape, as NVD's criteria write it.
    expect(productKeysFor('joomla', fingerprints)).toEqual(['cpe:joomla:joomla\\!']);
    expect(technologiesForProduct('osv:npm:lodash', fingerprints)).toEqual(['lodash']);
    expect(technologiesForProduct('cpe:jquery:jquery', fingerprints)).toEqual(['jquery']);
  });
});
