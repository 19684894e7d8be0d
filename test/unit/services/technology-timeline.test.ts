import type { DetectedTechnology } from '../../../src/detection';
import { planTimeline } from '../../../src/services/site-index/technology-timeline';
import type { SiteObservation } from '../../../src/services/site-index/site-index.service';
import type { SiteTechnologyEntity } from '../../../src/storage/entities';

const tech = (slug: string, version = ''): DetectedTechnology => ({
  name: slug,
  slug,
  categories: [],
  versions: version ? [version] : [],
  version,
  confidence: 100,
  icon: '',
  website: '',
  implied: false,
  evidence: [],
});

/** An analysis of these pages (path → technologies found there). */
const observed = (pages: Record<string, DetectedTechnology[]>): SiteObservation => {
  const all = new Map(
    Object.values(pages)
      .flat()
      .map((t) => [t.slug, t]),
  );
  return {
    url: 'https://example.com/',
    pages: Object.entries(pages).map(([path, technologies]) => ({
      url: `https://example.com${path}`,
      isRoot: path === '/',
      technologies,
      languages: [],
    })),
    technologies: [...all.values()],
    hostnames: [],
    at: new Date(),
  };
};

const row = (slug: string, evidence: string[], extra: Partial<SiteTechnologyEntity> = {}) =>
  ({
    id: slug.length,
    slug,
    name: slug,
    version: '',
    live: true,
    confirmedAt: new Date(0),
    evidencePaths: JSON.stringify(evidence),
    ...extra,
  }) as SiteTechnologyEntity;

/** The timeline's rule, without a database: what an analysis adds, removes, and keeps. */
describe('planTimeline', () => {
  it('removes only what every evidenced page, read again, no longer shows', () => {
    const prior = [row('a', ['/']), row('b', ['/', '/contact']), row('c', ['/contact']), row('d', ['*'])];
    const plan = planTimeline(prior, observed({ '/': [] }));
    expect(plan.changes.map((c) => [c.slug, c.kind])).toEqual([['a', 'removed']]);
    // b lost its home-page evidence; c and d were not read.
    expect(plan.undetected).toEqual([
      { id: 1, evidencePaths: '["/"]', removed: true },
      { id: 1, evidencePaths: '["/contact"]', removed: false },
    ]);
  });

  it("a crawl reads the '*' evidence of older rows; a found technology keeps the pages it did not read", () => {
    const prior = [row('d', ['*']), row('e', ['/about'], { version: '1.0' })];
    const plan = planTimeline(prior, observed({ '/': [tech('e', '2.0')], '/contact': [] }));
    expect(plan.changes.map((c) => [c.slug, c.kind, c.fromVersion, c.toVersion])).toEqual([
      ['e', 'version', '1.0', '2.0'],
      ['d', 'removed', '', ''],
    ]);
    expect(plan.evidence.get('e')).toBe('["/","/about"]');
    expect(plan.versions).toEqual([{ slug: 'e', version: '2.0' }]);
    // 1.0 stopped being current: its last sighting is e's previous one.
    expect(plan.superseded).toEqual([{ slug: 'e', version: '1.0', lastSeenAt: new Date(0) }]);
  });

  it('adds what is new or was removed, and an unknown version is no version change', () => {
    const prior = [row('f', ['/'], { live: false }), row('g', ['/'], { version: '3.1' })];
    const plan = planTimeline(prior, observed({ '/': [tech('f', '4'), tech('g'), tech('h')] }));
    expect(plan.changes.map((c) => [c.slug, c.kind, c.toVersion])).toEqual([
      ['f', 'added', '4'],
      ['h', 'added', ''],
    ]);
  });

  it('a row without evidence counts as seen on some crawled page', () => {
    const prior = [row('i', [])];
    expect(planTimeline(prior, observed({ '/': [] })).undetected).toEqual([
      { id: 1, evidencePaths: '["*"]', removed: false },
    ]);
    const plan = planTimeline(prior, observed({ '/': [], '/about': [] }));
    expect(plan.changes.map((c) => [c.slug, c.kind])).toEqual([['i', 'removed']]);
  });

  it('writes no sighting for a current version seen again (its last sighting is the technology’s)', () => {
    const prior = [row('g', ['/'], { version: '3.1' })];
    const steady = planTimeline(prior, observed({ '/': [tech('g', '3.1')] }));
    expect([steady.versions, steady.superseded, steady.changes]).toEqual([[], [], []]);
    const unknown = planTimeline(prior, observed({ '/': [tech('g')] }));
    expect([unknown.versions, unknown.superseded, unknown.changes]).toEqual([[], [], []]);
  });
});
