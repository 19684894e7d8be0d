import { diffPacks } from '../../../src/detection/pack-diff';
import type { RawPack } from '../../../src/detection/raw-pack';

const pack = (technologies: RawPack['technologies'], categories: RawPack['categories'] = {}): RawPack => ({
  technologies,
  categories: { '1': { name: 'CMS', priority: 1 }, ...categories },
  groups: {},
});

describe('diffPacks', () => {
  it('lists technologies added and removed by name, sorted', () => {
    const diff = diffPacks(
      pack({ Zeta: { cats: [1] }, Alpha: { cats: [1] }, Kept: { cats: [1] } }),
      pack({ Kept: { cats: [1] }, Omega: { cats: [1] }, Beta: { cats: [1] } }),
    );
    expect(diff.added).toEqual(['Beta', 'Omega']);
    expect(diff.removed).toEqual(['Alpha', 'Zeta']);
    expect(diff.changed).toEqual([]);
  });

  it('says which fields of a technology changed: a value differs, a field added, a field removed', () => {
    const diff = diffPacks(
      pack({
        WordPress: { cats: [1], html: 'wp-content', meta: { generator: 'WordPress' }, icon: 'wp.svg' },
      }),
      pack({ WordPress: { cats: [1], html: 'wp-includes', headers: { 'X-Pingback': '' }, icon: 'wp.svg' } }),
    );
    expect(diff.changed).toEqual([{ name: 'WordPress', fields: ['headers', 'html', 'meta'] }]);
  });

  it('object keys in another order are the same value; list order and string-versus-list are not', () => {
    const diff = diffPacks(
      pack({
        A: { meta: { generator: 'A', author: 'x' } },
        B: { cats: [1, 2] },
        C: { html: 'c' },
      }),
      pack({
        A: { meta: { author: 'x', generator: 'A' } },
        B: { cats: [2, 1] },
        C: { html: ['c'] },
      }),
    );
    expect(diff.changed).toEqual([
      { name: 'B', fields: ['cats'] },
      { name: 'C', fields: ['html'] },
    ]);
  });

  it('lists category ids added, removed and changed', () => {
    const diff = diffPacks(
      pack({}, { '2': { name: 'Blogs', priority: 1 }, '10': { name: 'Analytics', priority: 9 } }),
      pack({}, { '10': { name: 'Web analytics', priority: 9 }, '3': { name: 'Shops', priority: 2 } }),
    );
    expect(diff.categories).toEqual({ added: ['3'], removed: ['2'], changed: ['10'] });
  });
});
