import { DetectionEngine, Fingerprints } from '../../../src/detection';
import { scanAsOne } from '../../../src/detection/joined-scan';
import { LiteralScan, LiteralTable } from '../../../src/detection/literal-table';

function tableOf(...literals: string[]): LiteralTable {
  const table = new LiteralTable();
  for (const literal of literals) table.id(literal);
  return table;
}

describe('LiteralScan', () => {
  it('has the ids it lists, and no other', () => {
    const scan = new LiteralScan(Int32Array.from([2, 5, 9, 40]));
    const found = Array.from({ length: 45 }, (_, id) => id).filter((id) => scan.has(id));
    expect(found).toEqual([2, 5, 9, 40]);
    expect(new LiteralScan(new Int32Array(0)).has(0)).toBe(false);
  });
});

describe('scanAsOne', () => {
  it('finds the literals that one scan per text finds, none across two texts', () => {
    const table = tableOf('jquery', 'bootstrap', 'cdn.example.com', 'min.js');
    const texts = ['/js/jquery.MIN.js', 'https://cdn.example.com/boot', 'strap.js', ''];
    const joined = scanAsOne(table, texts);
    // "bootstrap" lies only across the second and third texts.
    expect([...joined.ids]).toEqual([0, 2, 3]);
    const apart = table.scanFound(texts);
    expect([...joined.ids]).toEqual([...apart.ids]);
    expect([0, 1, 2, 3].map((id) => joined.has(id))).toEqual([true, false, true, true]);
  });

  it('scans each text alone when a literal holds the joining character', () => {
    const table = tableOf('ab\u0000cd', 'abcd');
    expect([...scanAsOne(table, ['ab', 'cd']).ids]).toEqual([]);
    expect([...scanAsOne(table, ['xab\u0000cdx', 'y']).ids]).toEqual([0]);
  });
});

describe('the url, text and css patterns, scanned together', () => {
  const engine = new DetectionEngine(
    new Fingerprints(
      {
        ByUrl: { cats: [1], url: ['shop-alpha'] },
        ByText: { cats: [1], text: ['beta-widget'] },
        ByCss: { cats: [1], css: ['\\.gamma-grid'] },
      },
      { 1: { name: 'CMS', priority: 1, groups: [] } },
    ),
  );
  const names = (url: string, html: string): string[] =>
    engine
      .analyze({ url, html })
      .technologies.map((t) => t.name)
      .sort();

  it('each finds its own text', () => {
    const html = '<style>.gamma-grid{}</style><p>beta-widget</p>';
    expect(names('https://shop-alpha.example/', html)).toEqual(['ByCss', 'ByText', 'ByUrl']);
  });

  it('none reports a literal found only in another text of the three', () => {
    // Each literal is in the scanned texts, but in another kind's text than its pattern reads.
    const html = '<style>.x{content:"shop-alpha beta-widget"}</style><p>.gamma-grid</p>';
    expect(names('https://example.com/beta-widget/.gamma-grid', html)).toEqual([]);
  });
});
