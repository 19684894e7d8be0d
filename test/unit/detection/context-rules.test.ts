import { DetectionEngine, Fingerprints, type ContextRuleName } from '../../../src/detection';
import { isClassNameEvidence } from '../../../src/detection/context-rules';
import type { RawTechnology } from '../../../src/detection/fingerprints';
import { jsLiteralRanges, literalAround } from '../../../src/detection/js-literals';

const categories = {
  19: { name: 'Miscellaneous', priority: 10, groups: [6] },
  22: { name: 'Web servers', priority: 8, groups: [7] },
  27: { name: 'Programming languages', priority: 5, groups: [9] },
  59: { name: 'JavaScript libraries', priority: 9, groups: [9] },
};

function engines(technologies: Record<string, RawTechnology>, rule: ContextRuleName) {
  const fp = new Fingerprints(technologies, categories);
  return {
    without: new DetectionEngine(fp, 'test', { contextRules: [] }),
    with: new DetectionEngine(fp, 'test', { contextRules: [rule] }),
  };
}

const names = (engine: DetectionEngine, input: Parameters<DetectionEngine['analyze']>[0]): string[] =>
  engine.analyze(input).technologies.map((t) => t.name);

/** The text of each literal range, to read the lexer's answer at a glance. */
const literalTexts = (code: string): string[] => jsLiteralRanges(code).map((r) => code.slice(r.start, r.end));

describe('jsLiteralRanges (the lexer under rule a)', () => {
  it('finds strings, comments and regex literals, and leaves code alone', () => {
    const code = `/*! Lib v1 */ var a = "x.php?y", b = 'it\\'s'; // end\nif (a / 2 > b / 3) c = /\\.php$/g.test(a);`;
    expect(literalTexts(code)).toEqual(['/*! Lib v1 */', '"x.php?y"', "'it\\'s'", '// end', '/\\.php$/g']);
  });

  it('tells a division from a regex by what comes before the slash', () => {
    expect(literalTexts('x = a / b / c;')).toEqual([]);
    expect(literalTexts('return /ab+c/i.test(s)')).toEqual(['/ab+c/i']);
    expect(literalTexts('f(/[/]x/)')).toEqual(['/[/]x/']);
  });

  it('takes a template literal whole, over nested substitutions and templates', () => {
    const code = 'let t = `a ${ b ? `c${d}` : "}" } e`; f();';
    expect(literalTexts(code)).toEqual(['`a ${ b ? `c${d}` : "}" } e`']);
  });

  it('finds the range around a match, and none when part of it is code', () => {
    const code = 'var s = "/wp-content/x"; wp_content();';
    const ranges = jsLiteralRanges(code);
    const at = code.indexOf('/wp-content');
    expect(literalAround(ranges, at, at + 11)?.kind).toBe('string');
    const call = code.indexOf('wp_content()');
    expect(literalAround(ranges, call, call + 10)).toBeUndefined();
    // straddling the end of a string
    expect(literalAround(ranges, code.indexOf('x"'), code.indexOf('x"') + 3)).toBeUndefined();
  });

  it('never fails on text that is not JavaScript', () => {
    expect(() => jsLiteralRanges('<div class="a">"unterminated\n/* open')).not.toThrow();
    expect(() => jsLiteralRanges('`${`${')).not.toThrow();
  });
});

describe('rule a: literal-only-match', () => {
  const data: Record<string, RawTechnology> = {
    PHP: { cats: [27], scripts: ['\\.php(?:\\?|$)'], html: ['<a [^>]*href="[^"]+\\.php(?:\\?|")'] },
    WordPress: { cats: [19], scripts: ['/wp-content'] },
    Lib: { cats: [59], scripts: ['Lib v([\\d.]+)\\;version:\\1'] },
    Widget: { cats: [19], scripts: ['api\\.widget\\.com/'] },
  };
  const { without, with: withRule } = engines(data, 'literal-only-match');
  const page = (scripts: string[], html = '<html></html>') => ({ url: 'https://a.example/', html, scripts });

  it('drops a path or extension found only in a string or comment of a script', () => {
    const script = 'var u = "/api/x.php?id=1"; /* themes live under /wp-content */ go(u);';
    expect(names(without, page([script]))).toEqual(expect.arrayContaining(['PHP', 'WordPress']));
    expect(names(withRule, page([script]))).toEqual([]);
  });

  it('keeps it when one match lies in code (an identifier, an expression)', () => {
    // a regex literal is data too; the second match is code
    const script = 'var r = /\\.php?/; page.php?.render();';
    expect(names(withRule, page([script]))).toEqual(['PHP']);
  });

  it('keeps a version banner in a comment for its own library', () => {
    const result = withRule.analyze(page(['/*! Lib v3.7.1 | MIT */ (function(){})();']));
    expect(result.technologies.map((t) => `${t.name} ${t.version}`)).toEqual(['Lib 3.7.1']);
  });

  it('keeps a host a loader holds in a string (what such a pattern is for)', () => {
    expect(names(withRule, page(['load("https://api.widget.com/v1/w.js")']))).toEqual(['Widget']);
  });

  it('judges html patterns only inside inline scripts, not in markup', () => {
    const markup = '<html><body><a href="/index.php?p=1">home</a></body></html>';
    expect(names(withRule, { url: 'https://a.example/', html: markup })).toEqual(['PHP']);
    const inScript =
      '<html><body><script>var tpl = \'<a href="/index.php?p=1">\';</script><p>static</p></body></html>';
    expect(names(without, { url: 'https://a.example/', html: inScript })).toEqual(['PHP']);
    expect(names(withRule, { url: 'https://a.example/', html: inScript })).toEqual([]);
    // a template's body is markup, not JavaScript
    const template = '<script type="text/template"><a href="/index.php?p=1">x</a></script>';
    expect(names(withRule, { url: 'https://a.example/', html: template })).toEqual(['PHP']);
  });
});

describe('rule b: lookalike-class-name', () => {
  const data: Record<string, RawTechnology> = {
    'Font Awesome': {
      cats: [59],
      dom: { "[class*='fa']": { attributes: { class: '(?:^|\\s)fa(?:-[a-z0-9-]+)?(?:\\s|$)' } } },
      scriptSrc: ['font-?awesome'],
    },
    Handlebars: {
      cats: [59],
      dom: ["script[type='text/x-handlebars-template']"],
      scriptSrc: ['handlebars(?:\\.min)?\\.js'],
    },
  };
  const { without, with: withRule } = engines(data, 'lookalike-class-name');
  const page = (html: string) => ({ url: 'https://a.example/', html });
  const icons = '<i class="fa fa-twitter"></i>';

  it("drops a library found by its markup alone when its lookalike's marker is on the page", () => {
    const fork = `<link href="vendor/fork-awesome/css/fork-awesome.css" rel="stylesheet">${icons}`;
    expect(names(without, page(fork))).toEqual(['Font Awesome']);
    expect(names(withRule, page(fork))).toEqual([]);
    const mustache =
      '<script type="text/x-handlebars-template" id="t"></script><script src="/static/mustache/mustache.min.js?v=1"></script>';
    expect(names(without, page(mustache))).toEqual(['Handlebars']);
    expect(names(withRule, page(mustache))).toEqual([]);
  });

  it("keeps it without the lookalike's marker, or when its own script corroborates it", () => {
    expect(names(withRule, page(icons))).toEqual(['Font Awesome']);
    const both = `<link href="fork-awesome.css" rel="stylesheet">${icons}<script src="/js/fontawesome.js"></script>`;
    expect(names(withRule, page(both))).toEqual(['Font Awesome']);
  });

  it('knows class-name evidence from other DOM evidence', () => {
    const dom = (key: string) => ({ kind: 'dom' as const, key, pattern: '', matched: '' });
    expect(isClassNameEvidence(dom('.swiper-container'))).toBe(true);
    expect(isClassNameEvidence(dom('div.a, .b'))).toBe(true);
    expect(isClassNameEvidence(dom("[class*='fa'] @class"))).toBe(true);
    expect(isClassNameEvidence(dom('div#root'))).toBe(false);
    expect(isClassNameEvidence(dom('.x @data-v'))).toBe(false);
    expect(isClassNameEvidence({ kind: 'scriptSrc', pattern: 'swiper', matched: 'swiper' })).toBe(false);
  });
});

describe('rule c: contradicted-build-tool', () => {
  const data: Record<string, RawTechnology> = {
    Webpack: { cats: [19], js: { webpackChunk: '' } },
    Vite: { cats: [19], dom: ['script#vite-legacy-entry'] },
    Framework: { cats: [19], meta: { generator: '^Framework' }, implies: ['Webpack'] },
  };
  const { without, with: withRule } = engines(data, 'contradicted-build-tool');
  const generator = '<meta name="generator" content="Framework 2">';

  it('drops the bundler a framework implies when the page shows another one', () => {
    const html = `<html><head>${generator}<script id="vite-legacy-entry">x()</script></head></html>`;
    expect(names(without, { url: 'https://a.example/', html }).sort()).toEqual([
      'Framework',
      'Vite',
      'Webpack',
    ]);
    expect(names(withRule, { url: 'https://a.example/', html }).sort()).toEqual(['Framework', 'Vite']);
  });

  it('keeps the implied bundler when the page shows no other', () => {
    const html = `<html><head>${generator}</head></html>`;
    expect(names(withRule, { url: 'https://a.example/', html }).sort()).toEqual(['Framework', 'Webpack']);
  });
});

describe('rule d: protocol-not-negotiated', () => {
  const data: Record<string, RawTechnology> = {
    'HTTP/2': { cats: [19], headers: { 'Alt-Svc': 'h2' } },
    'HTTP/3': { cats: [19], headers: { 'Alt-Svc': 'h3' } },
    H2O: { cats: [22], headers: { Server: '^h2o' }, implies: ['HTTP/2', 'HTTP/3'] },
  };
  const { without, with: withRule } = engines(data, 'protocol-not-negotiated');
  const input = (url: string, headers: Record<string, string[]>) => ({ url, html: '<html></html>', headers });

  it('drops an implied HTTP/2 on a cleartext connection, which no browser speaks it over', () => {
    const page = input('http://a.example/', { server: ['h2o/2.2.6'] });
    expect(names(without, page).sort()).toEqual(['H2O', 'HTTP/2', 'HTTP/3']);
    expect(names(withRule, page)).toEqual(['H2O']);
  });

  it('keeps implied HTTP/2 over https, and HTTP/3 only where Alt-Svc advertises it', () => {
    expect(names(withRule, input('https://a.example/', { server: ['h2o'] })).sort()).toEqual([
      'H2O',
      'HTTP/2',
    ]);
    const advertised = input('https://a.example/', { server: ['h2o'], 'alt-svc': ['h3=":443"'] });
    expect(names(withRule, advertised).sort()).toEqual(['H2O', 'HTTP/2', 'HTTP/3']);
  });

  it('keeps direct evidence (an Alt-Svc header) whatever the scheme', () => {
    expect(names(withRule, input('http://a.example/', { 'alt-svc': ['h2=":443"'] }))).toEqual(['HTTP/2']);
  });
});

describe('a version a library states in its own text outranks a contradicting one from its URL', () => {
  const fp = new Fingerprints(
    {
      Lib: {
        cats: [59],
        scriptSrc: ['/lib-(\\d+\\.\\d+\\.\\d+)\\.min\\.js\\;version:\\1'],
        scripts: ['/\\*! Lib v(\\d+\\.\\d+\\.\\d+) \\|\\;version:\\1'],
      },
    },
    categories,
  );
  const engine = new DetectionEngine(fp, 'test');
  const page = (scripts: string[]) => ({
    url: 'https://a.example/',
    html: '<script src="/js/lib-1.10.2.min.js"></script>',
    scripts,
  });

  it('drops the file name version the banner contradicts (a renamed or replaced file)', () => {
    const lib = engine.analyze(page(['/*! Lib v3.6.1 | MIT */'])).technologies[0];
    expect(lib.versions).toEqual(['3.6.1']);
  });

  it('keeps the file name version when nothing contradicts it, or when it agrees', () => {
    expect(engine.analyze(page([])).technologies[0].version).toBe('1.10.2');
    expect(engine.analyze(page(['/*! Lib v1.10.2 | MIT */'])).technologies[0].versions).toEqual(['1.10.2']);
  });
});
