import { DetectionEngine, loadFingerprints } from '../../../src/detection';
import { MAX_DEPTH, parseHtml } from '../../../src/html';

/**
 * Inputs that hang or blow up naive engines. Each test asserts on results (what is still found, what
 * the reader made of the markup); the benchmark shows the time.
 */
const engine = new DetectionEngine(loadFingerprints());
const wpHead =
  '<head><meta name="generator" content="WordPress 6.4.2"><script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1"></script></head>';
const names = (html: string, extra: object = {}) =>
  engine.analyze({ url: 'https://hostile.example/', html, ...extra }).technologies.map((t) => t.name);

describe('hostile input', () => {
  it('reads a 10 MB page: html bounded to its first and last 3 MB, facts at both ends still found', () => {
    const filler = '<div class="row"><p>lorem ipsum dolor sit amet</p></div>\n';
    const middle = filler.repeat(Math.ceil(10_000_000 / filler.length));
    const html = `<html>${wpHead}<body>${middle}<!-- Google Tag Manager --><p>end</p></body></html>`;
    expect(html.length).toBeGreaterThan(10_000_000);
    const found = names(html);
    expect(found).toEqual(expect.arrayContaining(['WordPress', 'jQuery', 'Google Tag Manager']));
  });

  it('survives 100,000 nested elements (tree capped at 512 levels, selectors still evaluated)', () => {
    const depth = 100_000;
    const html = `<html>${wpHead}<body>${'<div>'.repeat(depth)}<app-root ng-version="17.0.5"></app-root>${'</div>'.repeat(depth)}</body></html>`;
    const doc = parseHtml(html);
    let deepest = 0;
    for (const element of doc.elements) {
      let d = 0;
      for (let p = element.parent; p >= 0 && d <= MAX_DEPTH + 1; p = doc.elements[p].parent) d++;
      deepest = Math.max(deepest, d);
    }
    expect(deepest).toBeLessThanOrEqual(MAX_DEPTH);
    const result = engine.analyze({ url: 'https://hostile.example/', html });
    expect(result.technologies.find((t) => t.name === 'Angular')?.version).toBe('17.0.5');
    expect(result.technologies.map((t) => t.name)).toContain('WordPress');
  });

  it('survives 300 KB of "<a " with no ">" (one unterminated tag, dropped as the HTML tokenizer does)', () => {
    const junk = '<a '.repeat(100_000);
    const html = `<html>${wpHead}<body><p>before</p>${junk}`;
    const doc = parseHtml(html);
    expect(doc.elements.filter((e) => e.tag === 'a')).toHaveLength(0);
    expect(doc.text).toContain('before');
    expect(names(html)).toEqual(expect.arrayContaining(['WordPress', 'jQuery']));
    // the same junk in the middle of a page that goes on normally
    const found = names(`<html>${wpHead}<body>${junk}<p>after</p></body></html>`);
    expect(found).toContain('WordPress');
  });

  it('treats minified JavaScript full of "<" as script text, not markup', () => {
    const js =
      'for(var i=0;i<n;i++){if(a<b&&c<d)x="<div class=\\"wp-block-group\\">"+i<y?"<a href=x>":"</b>";}'.repeat(
        8_000,
      );
    const html = `<html>${wpHead}<body><script>${js}</script><div id="after" class="real">ok</div></body></html>`;
    const doc = parseHtml(html);
    expect(doc.elements.filter((e) => e.tag === 'a' || e.tag === 'b')).toHaveLength(0);
    expect(doc.elements.some((e) => e.tag === 'div' && e.attrs.includes('after'))).toBe(true);
    expect(doc.inlineScripts[0].length).toBe(js.length);
    expect(names(html)).toEqual(expect.arrayContaining(['WordPress', 'jQuery']));
  });

  it('accepts broken encodings: lone surrogates, NUL bytes, replacement characters, bad entities', () => {
    const broken =
      '\ud800\udfff\udc00 \u0000\u0000 \ufffd\ufffd &#xD800; &#99999999; &bogus; Ã©Ã¨ \u00ff\u00fe';
    const html = `<html>${wpHead}<body><p title="${broken}">${broken.repeat(2_000)}</p><meta name="x" content="${broken}"></body></html>`;
    expect(names(html)).toEqual(expect.arrayContaining(['WordPress', 'jQuery']));
    const withHeaders = names(html, {
      headers: { server: [`nginx/1.24.0${broken}`], 'x-powered-by': ['\u0000PHP/8.1'] },
      cookies: { [`\ud800${broken}`]: [broken] },
    });
    expect(withHeaders).toContain('Nginx');
  });

  it('bounds oversized side inputs (scripts, headers, cookies, script URLs)', () => {
    const result = engine.analyze({
      url: `https://hostile.example/${'a'.repeat(100_000)}`,
      html: `<html>${wpHead}</html>`,
      scripts: Array.from({ length: 200 }, () => 'var x = "<" + 1 < 2;'.repeat(60_000)),
      headers: {
        server: ['x'.repeat(1_000_000)],
        'x-list': Array.from({ length: 10_000 }, (_, i) => `v${i}`),
      },
      cookies: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`c${i}`, ['v']])),
      scriptSrc: Array.from({ length: 20_000 }, (_, i) => `/js/${i}.js`),
    });
    expect(result.technologies.map((t) => t.name)).toContain('WordPress');
  });
});
