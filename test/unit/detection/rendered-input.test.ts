import { DetectionEngine, Fingerprints } from '../../../src/detection';
import type { RawTechnology } from '../../../src/detection/fingerprints';

const categories = {
  10: { name: 'Analytics', priority: 9, groups: [2] },
  12: { name: 'JavaScript frameworks', priority: 8, groups: [9] },
  59: { name: 'JavaScript libraries', priority: 9, groups: [9] },
};

function engineFor(technologies: Record<string, RawTechnology>): DetectionEngine {
  return new DetectionEngine(new Fingerprints(technologies, categories));
}

const TECHNOLOGIES: Record<string, RawTechnology> = {
  Frame: {
    cats: [12],
    js: { 'Frame.version': '^([\\d.]+)$\\;version:\\1', __FRAME_HOOK__: '' },
    dom: { 'body > div': { properties: { _frameRoot: '' } } },
    implies: ['Core'],
    excludes: ['Old'],
  },
  Core: { cats: [59], js: { 'Core.ready': '' } },
  Old: { cats: [12], js: { OldFrame: '' } },
  Tracker: { cats: [10], xhr: ['\\.tracker\\.example'] },
  Widget: { cats: [59], js: { 'Widget.enabled': '' }, requires: ['Frame'] },
};

const page = { url: 'https://app.example/', html: '<html><body><div id="app"></div></body></html>' };

describe('rendered input (js, xhr and live-DOM evidence)', () => {
  const engine = engineFor(TECHNOLOGIES);

  it('matches js chain values with versions, resolved with implies, excludes and requires', () => {
    const result = engine.analyze({
      ...page,
      rendered: {
        html: page.html,
        js: { 'Frame.version': '2.7.1', OldFrame: true, 'Widget.enabled': true },
        xhr: [],
      },
    });
    const bySlug = Object.fromEntries(result.technologies.map((t) => [t.slug, t]));
    expect(bySlug.frame).toMatchObject({ version: '2.7.1', implied: false });
    expect(bySlug.frame.evidence[0]).toEqual({
      kind: 'js',
      key: 'Frame.version',
      pattern: '^([\\d.]+)$\\;version:\\1',
      matched: '2.7.1',
    });
    expect(bySlug.core).toMatchObject({ implied: true });
    expect(bySlug.old).toBeUndefined(); // excluded by Frame
    expect(bySlug.widget).toBeDefined(); // its requirement Frame is present
    expect(result.skipped).toEqual([]);
  });

  it('takes false for a chain that holds nothing, and a requirement missing drops the technology', () => {
    const result = engine.analyze({
      ...page,
      rendered: { html: page.html, js: { __FRAME_HOOK__: false, 'Widget.enabled': true }, xhr: [] },
    });
    expect(result.technologies).toEqual([]);
  });

  it('matches xhr patterns on request hosts, once per pattern however many requests match', () => {
    const result = engine.analyze({
      ...page,
      rendered: {
        html: page.html,
        js: {},
        xhr: ['collect.tracker.example/v1/e?x=1', 'collect.tracker.example/v1/e?x=2', 'cdn.other.example/a'],
      },
    });
    expect(result.technologies).toHaveLength(1);
    expect(result.technologies[0]).toMatchObject({ slug: 'tracker', confidence: 100 });
    expect(result.technologies[0].evidence).toEqual([
      {
        kind: 'xhr',
        key: 'collect.tracker.example/v1/e?x=1',
        pattern: '\\.tracker\\.example',
        matched: '.tracker.example',
      },
    ]);
  });

  it('matches live-DOM properties and DOM rules of the rendered markup', () => {
    const result = engine.analyze({
      ...page,
      rendered: {
        html: page.html,
        js: {},
        domProperties: { 'body > div': { _frameRoot: true } },
        xhr: [],
      },
    });
    expect(result.technologies.find((t) => t.slug === 'frame')?.evidence[0]).toMatchObject({
      kind: 'dom',
      key: 'body > div ._frameRoot',
    });
  });

  it('without a rendering, reports what the page hints at as skipped', () => {
    const result = engine.analyze({
      ...page,
      html: '<script>window.__FRAME_HOOK__ = 1; Frame.start()</script>',
    });
    expect(result.technologies).toEqual([]);
    expect(result.skipped).toEqual(expect.arrayContaining([{ slug: 'frame', name: 'Frame', reason: 'js' }]));
  });

  it('selects the chains whose root names occur in what the page loaded', () => {
    expect(engine.jsChainsFor(['<script>Frame.start()</script>']).sort()).toEqual(['Frame.version']);
    expect(engine.jsChainsFor(['var x = 1'])).toEqual([]);
    expect(engine.domPropertyProbes()).toEqual([{ selector: 'body > div', properties: ['_frameRoot'] }]);
  });
});
