import { readFileSync } from 'node:fs';

import { defaultFingerprintDirectory, loadCorrectedFingerprints } from '../../../src/detection';
import { isCpe23, splitCpe23 } from '../../../src/detection/cpe';
import { CPE_MAP_FILE, readCpeMap } from '../../../src/detection/cpe-map';
import { readPack } from '../../../src/detection/pack-files';
import { parsePack } from '../../../src/detection/raw-pack';

const table = readCpeMap();
const upstream = parsePack(readPack(defaultFingerprintDirectory()));

describe('the CPE table (data/cpe/cpe-map.json)', () => {
  it('has well-formed entries: a CPE 2.3 name with version ANY, and its source', () => {
    expect(table.size).toBeGreaterThan(0);
    for (const [name, entry] of table) {
      expect([name, isCpe23(entry.cpe)]).toEqual([name, true]);
      expect([name, splitCpe23(entry.cpe)?.[3]]).toEqual([name, '*']);
      expect(entry.source).toMatch(
        /^https:\/\/nvd\.nist\.gov\/(vuln\/detail\/CVE-\d{4}-\d+|products\/cpe\/search\/results\?namingFormat=2\.3&keyword=cpe%3A2\.3%3A[aho]%3A[^%]+%3A[^%]+)$/,
      );
      if (!entry.source.includes('/vuln/detail/')) {
        const [, vendor, product] = splitCpe23(entry.cpe) as string[];
        expect(entry.source.endsWith(`%3A${vendor}%3A${product}`)).toBe(true);
      }
    }
  });

  it('names each technology once, and each technology is in the built-in pack', () => {
    const text = readFileSync(CPE_MAP_FILE, 'utf8');
    const keys = [...text.matchAll(/^ {4}"([^"]+)": \{$/gm)].map((m) => m[1]);
    expect(keys.length).toBe(table.size);
    expect(new Set(keys).size).toBe(keys.length);
    for (const name of table.keys()) expect([name, name in upstream.technologies]).toEqual([name, true]);
  });

  it('adds CPEs upstream lacks, and corrects only the value it says it replaces', () => {
    for (const [name, entry] of table) {
      const before = upstream.technologies[name]?.cpe;
      // an addition for a technology upstream has since named, or a correction of a value upstream
      // no longer has, is reviewed (and dropped once upstream agrees)
      expect([name, before]).toEqual([name, entry.replaces]);
      expect(entry.cpe).not.toBe(before);
      if (entry.replaces) expect(entry.source).toMatch(/\/vuln\/detail\/CVE-/);
    }
  });

  it('gives every compiled set its CPEs, with or without the corrections pack', () => {
    for (const fingerprints of [
      loadCorrectedFingerprints(),
      loadCorrectedFingerprints({ corrections: false }),
    ]) {
      for (const [name, entry] of table) expect(fingerprints.technologyByName(name)?.cpe).toBe(entry.cpe);
    }
  });
});
