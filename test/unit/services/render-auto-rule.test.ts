import { DetectionEngine, loadFingerprints } from '../../../src/detection';
import type { FetchedPage } from '../../../src/fetch';
import { PageRenderer } from '../../../src/services/analysis/page-renderer';

const engine = new DetectionEngine(loadFingerprints());
const renderer = new PageRenderer(engine, null, 'auto');
const TEXT = `<p>${'An article about coffee roasting and the beans we buy. '.repeat(20)}</p>`;

function decide(html: string, scripts: string[] = [], scriptSrc: string[] = []): boolean {
  const input = { url: 'https://shop.example/', html, scripts, scriptSrc };
  const page = { input } as unknown as FetchedPage;
  return renderer.shouldRender(page, engine.analyze(input));
}

describe('the auto render rule', () => {
  it('never renders a page without scripts, however much it hints', () => {
    expect(decide(`<html><body>${TEXT} jQuery __NEXT_DATA__</body></html>`)).toBe(false);
  });

  it('renders an app shell: scripts and almost no visible text', () => {
    expect(decide('<html><body><div id="root"></div></body></html>', [], ['/static/main.js'])).toBe(true);
  });

  it('renders a text page whose scripts name a specific global of a technology not yet found', () => {
    expect(decide(`<html><body>${TEXT}</body></html>`, ['window.jQuery && jQuery(init)'], ['/app.js'])).toBe(
      true,
    );
  });

  it('does not render for plain words that happen to be global names', () => {
    expect(
      decide(
        `<html><body>${TEXT}<p>Base search moment Ember</p></body></html>`,
        ['var search = 1'],
        ['/app.js'],
      ),
    ).toBe(false);
  });

  it('does not render for a global whose technology static detection already found', () => {
    const src = 'https://www.google-analytics.com/analytics.js';
    const html = `<html><head><script async src="${src}"></script></head><body>${TEXT}</body></html>`;
    const inline = "window['GoogleAnalyticsObject'] = 'ga'";
    const result = engine.analyze({
      url: 'https://shop.example/',
      html,
      scripts: [inline],
      scriptSrc: [src],
    });
    expect(result.technologies.map((t) => t.slug)).toContain('google-analytics');
    expect(decide(html, [inline], [src])).toBe(false);
  });
});
