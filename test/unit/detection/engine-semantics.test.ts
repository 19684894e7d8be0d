import {
  DetectionEngine,
  Fingerprints,
  denoise,
  mergeResults,
  DENOISE_THRESHOLD,
} from '../../../src/detection';
import type { RawTechnology } from '../../../src/detection/fingerprints';

const categories = {
  1: { name: 'CMS', priority: 1, groups: [3] },
  6: { name: 'Ecommerce', priority: 1, groups: [1] },
  27: { name: 'Programming languages', priority: 5, groups: [9] },
  59: { name: 'JavaScript libraries', priority: 9, groups: [9] },
};

function engineFor(technologies: Record<string, RawTechnology>): DetectionEngine {
  return new DetectionEngine(new Fingerprints(technologies, categories));
}

const page = (html: string, extra: object = {}) => ({ url: 'https://site.example/', html, ...extra });

describe('pattern semantics', () => {
  it('resolves versions from back-references and ternaries', () => {
    const engine = engineFor({
      Lib: { cats: [59], scriptSrc: ['lib-(\\d+\\.\\d+)\\.js\\;version:\\1'] },
      Ed: {
        cats: [1],
        scriptSrc: ['skin/frontend/(?:default|(enterprise))\\;version:\\1?Enterprise:Community'],
      },
    });
    const result = engine.analyze(
      page('<script src="/js/lib-2.14.js"></script><script src="/skin/frontend/enterprise/x.js"></script>'),
    );
    const byName = Object.fromEntries(result.technologies.map((t) => [t.name, t]));
    expect(byName.Lib.version).toBe('2.14');
    expect(byName.Ed.version).toBe('Enterprise');
    const other = engine.analyze(page('<script src="/skin/frontend/default/x.js"></script>'));
    expect(other.technologies.find((t) => t.name === 'Ed')?.version).toBe('Community');
  });

  it('sums confidence over every match, caps it at 100, and picks the longest version', () => {
    const engine = engineFor({
      Lib: { cats: [59], scriptSrc: ['cdn\\.lib\\.example/(?:v([\\d.]+)/)?\\;confidence:30\\;version:\\1'] },
    });
    const two = engine.analyze(
      page(
        '<script src="https://cdn.lib.example/v1.2/a.js"></script><script src="https://cdn.lib.example/v1.2.10/b.js"></script>',
      ),
    );
    expect(two.technologies[0].confidence).toBe(60);
    expect(two.technologies[0].version).toBe('1.2.10');
    expect(two.technologies[0].versions).toEqual(['1.2.10', '1.2']);
    const many = engine.analyze(
      page(
        '<script src="https://cdn.lib.example/a.js"></script>'
          .repeat(5)
          .replace(/a\.js/g, (m, i) => `${i}${m}`),
      ),
    );
    expect(many.technologies[0].confidence).toBe(100);
  });

  it('matches header and cookie names case-insensitively, regex cookie names as regexes, and every meta tag', () => {
    const engine = engineFor({
      Server: { cats: [27], headers: { 'X-Powered-By': '^Acme/([\\d.]+)\\;version:\\1' } },
      Sess: { cats: [1], cookies: { 'SESS[a-f0-9]{32}': '' } },
      Connect: { cats: [27], cookies: { 'connect\\.sid': '' } },
      MyBB: { cats: [1], cookies: { 'mybb[lastvisit]': '' } },
      Gen: { cats: [1], meta: { generator: '^GenCMS ([\\d.]+)\\;version:\\1' } },
    });
    const result = engine.analyze(
      page(
        '<meta name="generator" content="Other 1"><meta name="Generator" content="GenCMS 3.1"><meta property="og:x" content="y">',
        {
          headers: { 'x-powered-by': ['Acme/7.2'] },
          cookies: {
            SESS0123456789abcdef0123456789abcdef: ['1'],
            'connect.sid': ['s'],
            'mybb[lastvisit]': ['1'],
          },
        },
      ),
    );
    const names = result.technologies.map((t) => `${t.name} ${t.version}`.trim()).sort();
    expect(names).toEqual(['Connect', 'Gen 3.1', 'MyBB', 'Server 7.2', 'Sess']);
    expect(engine.analyze(page('', { cookies: { connectXsid: ['1'] } })).technologies).toEqual([]);
  });

  it('finds what a long keyed list finds through its literal prefilter, in the list order', () => {
    const generators = [
      'WordPress ([\\d.]+)\\;version:\\1',
      'Joomla',
      'Drupal \\d+',
      '^Hugo',
      'Ghost',
      'Wix\\.com',
      'TYPO3',
      'Jimdo',
      '',
    ];
    const technologies: Record<string, RawTechnology> = {};
    generators.forEach((generator, n) => (technologies[`Gen${n}`] = { cats: [1], meta: { generator } }));
    const engine = engineFor(technologies);
    const found = (content: string): string[] =>
      engine
        .analyze(page(`<meta name="generator" content="${content}">`))
        .technologies.map((t) => `${t.name} ${t.version}`.trim())
        .sort();
    expect(found('WordPress 6.4.1')).toEqual(['Gen0 6.4.1', 'Gen8']);
    expect(found('hugo 0.1, drupal 10')).toEqual(['Gen2', 'Gen3', 'Gen8']);
    expect(found('something else')).toEqual(['Gen8']);
  });

  it('reads at most the bounded number and length of header values', () => {
    const engine = engineFor({ Server: { cats: [27], headers: { 'X-Served-By': 'acme-edge' } } });
    const names = (values: unknown[]): string[] =>
      engine
        .analyze(page('', { headers: { 'x-served-by': values as string[] } }))
        .technologies.map((t) => t.name);
    const filler = Array.from({ length: 100 }, () => 'other');
    expect(names([...filler.slice(1), 'acme-edge'])).toEqual(['Server']);
    expect(names([...filler, 'acme-edge'])).toEqual([]);
    expect(names([`${'x'.repeat(8_183)}acme-edge`])).toEqual(['Server']);
    expect(names([`${'x'.repeat(8_184)}acme-edge`])).toEqual([]);
    expect(names(['acme-edge'.padEnd(9_000, 'x')])).toEqual(['Server']);
  });

  it('reads cookies from Set-Cookie headers too', () => {
    const engine = engineFor({ Php: { cats: [27], cookies: { PHPSESSID: '' } } });
    const result = engine.analyze(
      page('', { headers: { 'set-cookie': ['PHPSESSID=abc; path=/; HttpOnly'] } }),
    );
    expect(result.technologies.map((t) => t.name)).toEqual(['Php']);
  });

  it('keeps an already escaped \\/ as a slash (the reference engine escaped it again)', () => {
    const engine = engineFor({ Hub: { cats: [1], url: ['https?:\\/\\/.+\\.content-hub\\.example'] } });
    expect(engine.analyze({ url: 'https://a.content-hub.example/', html: '' }).technologies).toHaveLength(1);
  });

  it('repairs url patterns that lack the colon and reports them', () => {
    const fp = new Fingerprints({ Shop: { cats: [6], url: ['^https?//.+\\.myshop\\.example'] } }, categories);
    expect(fp.warnings.map((w) => w.technology)).toEqual(['Shop']);
    const engine = new DetectionEngine(fp);
    expect(engine.analyze({ url: 'https://x.myshop.example/', html: '' }).technologies[0]?.name).toBe('Shop');
  });

  it('skips an invalid pattern with a warning and still loads the rest', () => {
    const fp = new Fingerprints({ Bad: { cats: [1], html: ['(unclosed', 'fine-marker'] } }, categories);
    expect(fp.warnings).toHaveLength(1);
    expect(fp.warnings[0].message).toMatch(/invalid regular expression/);
    const result = new DetectionEngine(fp).analyze(page('<p>fine-marker</p>'));
    expect(result.technologies.map((t) => t.name)).toEqual(['Bad']);
  });

  it('reports at load the invalid patterns of every kind, even those compiled on first use', () => {
    const fp = new Fingerprints(
      {
        Bad: {
          cats: [1],
          scriptSrc: ['lib-(\\d+'],
          headers: { 'X-Powered-By': 'Bad[' },
          cookies: { session: '(?<x>a)(?<x>b)' },
          meta: { generator: '*bad' },
          dns: { TXT: 'a{2,1}' },
          dom: { 'div.bad-widget': { attributes: { 'data-v': '(' }, text: ')' } },
        },
      },
      categories,
    );
    expect(fp.warnings.map((w) => w.kind)).toEqual([
      'scriptSrc',
      'headers',
      'cookies',
      'meta',
      'dns',
      'dom',
      'dom',
    ]);
    for (const warning of fp.warnings) expect(warning.message).toMatch(/invalid regular expression/);
  });
});

describe('implies, requires, excludes', () => {
  const technologies: Record<string, RawTechnology> = {
    WordPress: { cats: [1], meta: { generator: '^WordPress' }, implies: ['PHP\\;confidence:50', 'MySQL'] },
    PHP: { cats: [27] },
    MySQL: { cats: [27] },
    WooCommerce: { cats: [6], requires: ['WordPress'], scriptSrc: ['woocommerce'] },
    CartWidget: { cats: [59], requiresCategory: [6], html: ['cart-widget'] },
    Legacy: { cats: [1], html: ['legacy-marker'] },
    Modern: { cats: [1], html: ['modern-marker'], excludes: ['Legacy'] },
  };
  const engine = engineFor(technologies);

  it('finds a technology with requires only when what it requires is present, with a second pass', () => {
    const without = engine.analyze(
      page('<script src="/plugins/woocommerce/cart.js"></script><div class="cart-widget">'),
    );
    expect(without.technologies).toEqual([]);
    const withWp = engine.analyze(
      page(
        '<meta name="generator" content="WordPress 6"><script src="/plugins/woocommerce/cart.js"></script><div class="cart-widget">',
      ),
    );
    expect(withWp.technologies.map((t) => t.name).sort()).toEqual([
      'CartWidget',
      'MySQL',
      'PHP',
      'WooCommerce',
      'WordPress',
    ]);
  });

  it('strips tags from implied names and takes the lower confidence', () => {
    const result = engine.analyze(page('<meta name="generator" content="WordPress 6">'));
    const php = result.technologies.find((t) => t.name === 'PHP');
    expect(php).toMatchObject({ implied: true, confidence: 50 });
    expect(php?.evidence[0]).toEqual({ kind: 'implies', pattern: 'WordPress', matched: '' });
    expect(result.technologies.find((t) => t.name === 'WordPress')?.implied).toBe(false);
  });

  it('applies excludes', () => {
    const result = engine.analyze(page('legacy-marker modern-marker'));
    expect(result.technologies.map((t) => t.name)).toEqual(['Modern']);
  });

  it('sorts by category priority', () => {
    const result = engine.analyze(page('<meta name="generator" content="WordPress">'));
    expect(result.technologies[0].name).toBe('WordPress');
  });
});

describe('DOM patterns', () => {
  const engine = engineFor({
    Angular: {
      cats: [59],
      dom: { '[ng-version]': { attributes: { 'ng-version': '^([\\d.]+)\\;version:\\1' } } },
    },
    Footer: { cats: [1], dom: { 'div.footer > a[href*="maker.example"]': { exists: '' } } },
    Boot: { cats: [59], dom: { style: { text: '--bs-gutter' } } },
    Title: { cats: [1], dom: { 'head > title': { text: '^Acme Portal' } } },
  });

  it('evaluates exists, attributes and text with combinators', () => {
    const result = engine.analyze(
      page(
        '<html><head><title>Acme Portal — Home</title><style>:root{--bs-gutter-x:1rem}</style></head><body>' +
          '<app-root ng-version="17.0.5"></app-root><div class="wide footer"><p>by</p><a href="https://maker.example/">Maker</a></div></body></html>',
      ),
    );
    const byName = Object.fromEntries(result.technologies.map((t) => [t.name, t]));
    expect(byName.Angular.version).toBe('17.0.5');
    expect(byName.Angular.evidence[0]).toMatchObject({
      kind: 'dom',
      key: '[ng-version] @ng-version',
      matched: '17.0.5',
    });
    expect(Object.keys(byName).sort()).toEqual(['Angular', 'Boot', 'Footer', 'Title']);
  });

  it('does not match when the structure differs', () => {
    const result = engine.analyze(
      page(
        '<div class="footer"><span><a href="https://maker.example/">x</a></span></div><title>Other</title>',
      ),
    );
    expect(result.technologies).toEqual([]);
  });
});

describe('skipped, denoise, merge', () => {
  const engine = engineFor({
    Lib: { cats: [59], js: { 'LibGlobal.version': '' }, scriptSrc: ['lib-only\\.js'] },
    Weak: { cats: [59], html: ['weak-marker\\;confidence:25'] },
    Strong: { cats: [59], html: ['strong-marker'] },
  });

  it('reports technologies whose browser-only patterns the page hints at', () => {
    const result = engine.analyze(page('<script>window.LibGlobal = {};</script>'));
    expect(result.skipped).toEqual([{ slug: 'lib', name: 'Lib', reason: 'js' }]);
    expect(engine.analyze(page('<p>nothing</p>')).skipped).toEqual([]);
    expect(engine.analyze(page('<script src="/lib-only.js"></script>LibGlobal')).skipped).toEqual([]);
  });

  it('reports each hinted technology once, in the order hinted, and forgets it between pages', () => {
    const hinted = engineFor({
      First: { cats: [59], js: { 'FirstGlobal.version': '' } },
      Second: { cats: [59], js: { 'SecondGlobal.x': '', 'SecondGlobal.y': '' } },
      Seen: { cats: [59], js: { 'SeenGlobal.x': '' }, html: ['seen-marker'] },
    });
    const markup = '<script>SecondGlobal.y; SecondGlobal.x; FirstGlobal; SeenGlobal</script>';
    const names = (html: string): string[] => hinted.analyze(page(html)).skipped.map((s) => s.name);
    expect(names(markup)).toEqual(['First', 'Second', 'Seen']);
    expect(names(`${markup} seen-marker`)).toEqual(['First', 'Second']);
    expect(names(markup)).toEqual(['First', 'Second', 'Seen']);
    expect(names('<p>FirstGlobal</p>')).toEqual(['First']);
  });

  it('denoise drops results under the documented threshold', () => {
    const result = engine.analyze(page('weak-marker strong-marker'));
    expect(result.technologies).toHaveLength(2);
    expect(DENOISE_THRESHOLD).toBe(50);
    expect(denoise(result.technologies).map((t) => t.name)).toEqual(['Strong']);
    expect(denoise(result.technologies, 10)).toHaveLength(2);
  });

  it('merges several pages: max confidence, union of versions and evidence', () => {
    const versioned = engineFor({
      Lib: { cats: [59], scriptSrc: ['lib-([\\d.]+)\\.js\\;version:\\1\\;confidence:40'] },
    });
    const a = versioned.analyze(page('<script src="/lib-1.2.js"></script>'));
    const b = versioned.analyze(
      page('<script src="/lib-1.10.3.js"></script><script src="/lib-1.2.js"></script>'),
    );
    const merged = mergeResults([a, b]);
    expect(merged.technologies).toHaveLength(1);
    expect(merged.technologies[0]).toMatchObject({
      confidence: 80,
      version: '1.10.3',
      versions: ['1.10.3', '1.2'],
    });
    expect(merged.technologies[0].evidence.length).toBeLessThanOrEqual(10);
    expect(mergeResults([])).toEqual({ technologies: [], skipped: [], fingerprintsVersion: '' });
  });
});
