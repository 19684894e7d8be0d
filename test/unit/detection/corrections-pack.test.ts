import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  CORRECTIONS_PACK_DIR,
  correctedPack,
  defaultFingerprintDirectory,
  loadCorrectedFingerprints,
} from '../../../src/detection';
import { readPack } from '../../../src/detection/pack-files';
import { validatePack } from '../../../src/detection/pack-validator';
import { parsePack } from '../../../src/detection/raw-pack';

const upstream = parsePack(readPack(defaultFingerprintDirectory()));
const corrections = parsePack(readPack(CORRECTIONS_PACK_DIR));
const entries = Object.entries(corrections.technologies) as [string, Record<string, unknown>][];

describe('the corrections pack (data/fingerprints/corrections)', () => {
  it('is in the webappanalyzer layout with a declared version', () => {
    const files = readdirSync(join(CORRECTIONS_PACK_DIR, 'technologies'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file).toMatch(/^[a-z_]\.json$/);
    // each entry sits in the file of its first letter, as upstream files them
    for (const file of files) {
      const letter = file[0];
      const names = Object.keys(
        JSON.parse(readFileSync(join(CORRECTIONS_PACK_DIR, 'technologies', file), 'utf8')) as object,
      );
      for (const name of names) expect(/^[a-z]/i.test(name) ? name[0].toLowerCase() : '_').toBe(letter);
    }
    const manifest = JSON.parse(readFileSync(join(CORRECTIONS_PACK_DIR, 'pack.json'), 'utf8')) as {
      version: string;
    };
    expect(manifest.version).toMatch(/^\d{4}\.\d{2}\.\d{2}\.\d+$/);
  });

  it.each(entries.map(([name, entry]) => [name, entry] as const))(
    '%s: a complete upstream entry, every upstream field kept or its change explained in $comment',
    (name, entry) => {
      expect(typeof entry.$comment).toBe('string');
      expect((entry.$comment as string).length).toBeGreaterThan(60);
      const original = upstream.technologies[name] as Record<string, unknown> | undefined;
      if (!original) return; // a technology upstream lacks: complete on its own (validated below)
      // an upstream field is kept, or the comment says what became of it (moved, removed)
      const dropped = Object.keys(original).filter((field) => !(field in entry));
      for (const field of dropped)
        expect({ field, explained: (entry.$comment as string).includes(field) }).toEqual({
          field,
          explained: true,
        });
    },
  );

  it('validates laid over upstream: no errors, and no warning the upstream pack does not have', () => {
    const merged = correctedPack();
    const source = readPack(defaultFingerprintDirectory());
    const asPack = {
      ...source,
      technologies: [{ name: 'technologies.json', text: JSON.stringify(merged.technologies) }],
      manifest: undefined,
    };
    const report = validatePack(asPack);
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    const upstreamWarnings = new Set(
      validatePack(source).problems.map((p) => `${p.technology} ${p.field} ${p.message}`),
    );
    const added = report.problems.filter(
      (p) => !upstreamWarnings.has(`${p.technology} ${p.field} ${p.message}`),
    );
    expect(added).toEqual([]);
  });

  it('is laid over upstream by loadCorrectedFingerprints, and left out with corrections: false', () => {
    const corrected = correctedPack();
    const plain = correctedPack({ corrections: false });
    expect(corrected.technologies.PHP).toEqual(corrections.technologies.PHP);
    expect(plain.technologies.PHP).toEqual(upstream.technologies.PHP);
    expect(loadCorrectedFingerprints().technologies.length).toBe(
      new Set([...Object.keys(upstream.technologies), ...Object.keys(corrections.technologies)]).size,
    );
  });

  it('leaves CPEs as upstream has them: CPEs are named and corrected in data/cpe/cpe-map.json', () => {
    for (const [name, entry] of entries)
      expect([name, entry.cpe]).toEqual([name, upstream.technologies[name]?.cpe]);
  });
});
