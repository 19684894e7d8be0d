import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DetectionEngine,
  defaultFingerprintDirectory,
  Fingerprints,
  type DetectionInput,
} from '../../../src/detection';
import { readPack } from '../../../src/detection/pack-files';
import { compilePack, parsePack } from '../../../src/detection/raw-pack';

const dir = join(__dirname, '../../fixtures/pages');
const pages = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => {
    const { expect: _expected, ...facts } = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const html = readFileSync(join(dir, f.replace(/\.json$/, '.html')), 'utf8');
    return { name: f.replace(/\.json$/, ''), input: { ...facts, html } as DetectionInput };
  });

/**
 * Fingerprints.compileInSlices (a live switch) runs the constructor's own steps with turns of the
 * event loop between slices: the object it builds must be the one the synchronous constructor
 * builds (the CLI, the tests, start-up).
 */
describe('the sliced compile', () => {
  const raw = parsePack(readPack(defaultFingerprintDirectory()));
  let whole: Fingerprints;
  let sliced: Fingerprints;
  let pauses = 0;

  beforeAll(async () => {
    whole = compilePack(raw);
    sliced = await Fingerprints.compileInSlices(
      raw.technologies,
      raw.categories,
      raw.groups,
      () => {
        pauses++;
        return new Promise((resolve) => setImmediate(resolve));
      },
      // A small slice, so that even a fast machine pauses many times.
      1,
    );
  });

  it('paused between slices', () => {
    expect(pauses).toBeGreaterThan(10);
  });

  it('builds the same technologies, categories, groups, warnings and rules', () => {
    expect(sliced.technologies).toEqual(whole.technologies);
    expect(sliced.categories).toEqual(whole.categories);
    expect(sliced.groups).toEqual(whole.groups);
    expect(sliced.warnings).toEqual(whole.warnings);
    expect(sliced.domRules.length).toBe(whole.domRules.length);
    expect([...sliced.jsPatterns.keys()]).toEqual([...whole.jsPatterns.keys()]);
    expect(sliced.xhrPatterns.length).toBe(whole.xhrPatterns.length);
    for (const kind of ['headers', 'cookies', 'meta', 'dns'] as const)
      expect([...sliced.keyedPatterns[kind].byKey.keys()]).toEqual([
        ...whole.keyedPatterns[kind].byKey.keys(),
      ]);
    for (const [kind, set] of Object.entries(whole.textPatterns))
      expect(sliced.textPatterns[kind as keyof typeof whole.textPatterns].literalCount).toBe(
        set.literalCount,
      );
    expect(sliced.markupLiterals.size).toBe(whole.markupLiterals.size);
    expect(sliced.technologyBySlug('wordpress')?.name).toBe('WordPress');
  });

  it.each(pages.map((page) => [page.name, page] as const))('detects the same on %s', (_name, page) => {
    const a = new DetectionEngine(whole).analyze(page.input);
    const b = new DetectionEngine(sliced).analyze(page.input);
    expect(b.technologies.length).toBeGreaterThan(0);
    expect(b.technologies).toEqual(a.technologies);
  });
});
