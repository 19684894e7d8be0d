import { defaultFingerprintDirectory } from '../../../../src/detection';
import type { PackSource } from '../../../../src/detection/pack-files';
import { readPack } from '../../../../src/detection/pack-files';
import { layerOf, type PackLayer } from '../../../../src/services/fingerprints/pack-set';
import {
  validateLayers,
  validateLayersOffThread,
} from '../../../../src/services/fingerprints/pack-validation';

const overlay = (technologies: unknown): PackSource => ({
  technologies: [{ name: 'technologies/a.json', text: JSON.stringify(technologies) }],
  categories: { name: 'categories.json', text: '{}' },
});

/**
 * The API validates a pack on a worker thread (validateLayersOffThread): the same problems as the
 * inline check the CLI runs, while the API's event loop keeps turning.
 */
describe('pack validation off the event loop', () => {
  let builtin: PackLayer;
  beforeAll(() => {
    builtin = layerOf('builtin', 'base', readPack(defaultFingerprintDirectory()));
  });

  it('finds on a worker thread exactly the problems found inline, every one with file, technology and field', async () => {
    const bad = layerOf(
      'bad',
      'overlay',
      overlay({ BadPack: { cats: [1], html: ['(unclosed'], implies: ['NoSuchTechnology'] } }),
    );
    const request = { layers: [builtin, bad], from: 1, subject: 'bad' };
    const inline = validateLayers(request);
    expect(inline.filter((problem) => problem.severity === 'error')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'technologies/a.json', technology: 'BadPack', field: 'html[0]' }),
        expect.objectContaining({ file: 'technologies/a.json', technology: 'BadPack', field: 'implies[0]' }),
      ]),
    );
    expect(await validateLayersOffThread(request)).toEqual(inline);
  });

  it('checks a whole base pack while the event loop runs', async () => {
    let turns = 0;
    let turning = true;
    const turn = (): void => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const problems = await validateLayersOffThread({ layers: [builtin], from: 0, subject: 'builtin' });
    turning = false;
    expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(problems).toEqual(validateLayers({ layers: [builtin], from: 0, subject: 'builtin' }));
    // Inline, the check would have run between two turns; on the thread the loop kept going.
    expect(turns).toBeGreaterThan(10);
  });
});
