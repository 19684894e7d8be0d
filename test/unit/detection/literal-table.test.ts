import { DetectionEngine, Fingerprints } from '../../../src/detection';
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

describe('LiteralTable.scanFound of several texts', () => {
  it('finds the literals of each text, each once, none across two texts', () => {
    const table = tableOf('jquery', 'bootstrap', 'cdn.example.com', 'min.js');
    const texts = ['/js/jquery.MIN.js', 'https://cdn.example.com/boot', 'strap.js', '', 'jquery'];
    const scan = table.scanFound(texts);
    // "bootstrap" lies only across the second and third texts.
    expect([...scan.ids]).toEqual([0, 2, 3]);
    expect([0, 1, 2, 3].map((id) => scan.has(id))).toEqual([true, false, true, true]);
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
