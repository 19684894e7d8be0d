import { lookupV1Json } from '../../../src/services/lookup/lookup.contract';
import type { LookupMonth } from '../../../src/services/site-index/site-index.service';
import { StoredHistory } from '../../../src/services/lookup/stored-history';

const app = (name: string, confidence: number, hits = 3) => ({
  name,
  slug: name.toLowerCase(),
  categories: ['CMS'],
  versions: ['1.0'],
  hits,
  confidence,
});

const months = (): LookupMonth[] => [
  { monthYear: '10-2026', languages: ['en'], applications: [app('WordPress', 100), app('Faint', 20)] },
  { monthYear: '11-2026', languages: ['en', 'de'], applications: [app('WordPress', 100, 5)] },
];

describe('StoredHistory', () => {
  it('gives the same frozen view for a threshold every time, a view of its own per threshold', () => {
    const history = new StoredHistory(months());
    const denoised = history.view(50);
    expect(history.view(50)).toBe(denoised);
    expect(denoised[0].applications.map((a) => a.name)).toEqual(['WordPress']);
    const all = history.view(0);
    expect(all).not.toBe(denoised);
    expect(all[0].applications.map((a) => a.name)).toEqual(['WordPress', 'Faint']);
    // Shared by every request of the site: nothing may change it.
    for (const view of [denoised, all]) {
      expect(() => (view as LookupMonth[]).push(view[0])).toThrow(TypeError);
      expect(() => view[0].applications.push(app('X', 100))).toThrow(TypeError);
      expect(() => {
        view[0].applications[0].hits = 0;
      }).toThrow(TypeError);
      expect(() => view[1].languages.push('fr')).toThrow(TypeError);
    }
    expect(new StoredHistory([]).empty).toBe(true);
    expect(history.empty).toBe(false);
  });
});

describe('lookupV1Json', () => {
  it("renders the published fields in GraphQL's order, once per months array", () => {
    const view = new StoredHistory(months()).view(50);
    const json = lookupV1Json(view);
    expect(json).toBe(
      JSON.stringify([
        {
          monthYear: '10-2026',
          languages: ['en'],
          applications: [{ name: 'WordPress', categories: ['CMS'], versions: ['1.0'], hits: 3 }],
        },
        {
          monthYear: '11-2026',
          languages: ['en', 'de'],
          applications: [{ name: 'WordPress', categories: ['CMS'], versions: ['1.0'], hits: 5 }],
        },
      ]),
    );
    expect(lookupV1Json(view)).toBe(json);
    // Another array (another stored version) is rendered from its own content.
    const changed = months();
    changed[1].applications[0].hits = 6;
    expect(lookupV1Json(new StoredHistory(changed).view(50))).toContain('"hits":6');
  });
});
