import type { DetectedTechnology } from '../../../src/detection';
import { planLiveVersions } from '../../../src/services/site-index/technology-live-versions';
import type { SiteObservation } from '../../../src/services/site-index/site-index.service';
import type { SiteTechnologyEntity } from '../../../src/storage/entities';
import type { LiveVersionRow } from '../../../src/storage/technology-timeline.repository';

const tech = (slug: string, ...versions: string[]): DetectedTechnology => ({
  name: slug,
  slug,
  categories: [],
  versions,
  version: versions[0] ?? '',
  confidence: 100,
  icon: '',
  website: '',
  implied: false,
  evidence: [],
});

/** An analysis of these pages (path → technologies found there), merged as a crawl merges them. */
const observed = (pages: Record<string, DetectedTechnology[]>): SiteObservation => {
  const merged = new Map<string, DetectedTechnology>();
  for (const t of Object.values(pages).flat()) {
    const known = merged.get(t.slug);
    const versions = [...new Set([...(known?.versions ?? []), ...t.versions])];
    merged.set(t.slug, { ...t, versions, version: versions[0] ?? '' });
  }
  return {
    url: 'https://example.com/',
    pages: Object.entries(pages).map(([path, technologies]) => ({
      url: `https://example.com${path}`,
      isRoot: path === '/',
      technologies,
      languages: [],
    })),
    technologies: [...merged.values()],
    hostnames: [],
    at: new Date(),
  };
};

const row = (slug: string, version: string, evidence: string[], live = true) =>
  ({
    id: 1,
    slug,
    name: slug,
    version,
    live,
    confirmedAt: new Date(0),
    evidencePaths: JSON.stringify(evidence),
  }) as SiteTechnologyEntity;

const stored = (slug: string, version: string, evidence: string[]): LiveVersionRow => ({
  slug,
  version,
  evidencePaths: JSON.stringify(evidence),
});

const versions = (plan: Map<string, { version: string; evidencePaths: string }[]>, slug: string) =>
  plan.get(slug)?.map((v) => [v.version, JSON.parse(v.evidencePaths) as string[]]);

/** The versions on a site now, without a database: what an analysis adds, drops and keeps. */
describe('planLiveVersions', () => {
  it('keeps every version the pages show, one row each, and a row without a version when none is known', () => {
    const plan = planLiveVersions(
      [],
      [],
      observed({
        '/': [tech('jquery', '3.6.0', '1.12.4'), tech('lodash')],
        '/blog': [tech('jquery', '1.12.4')],
      }),
      new Set(),
    );
    expect(versions(plan, 'jquery')).toEqual([
      ['1.12.4', ['/', '/blog']],
      ['3.6.0', ['/']],
    ]);
    expect(versions(plan, 'lodash')).toEqual([['', []]]);
  });

  it('drops a version only when every page that showed it was read again without it', () => {
    const prior = [row('jquery', '3.6.0', ['/', '/blog'])];
    const before = [stored('jquery', '1.12.4', ['/blog']), stored('jquery', '3.6.0', ['/'])];
    // A one-page analysis of the home page cannot drop what the blog showed.
    const home = planLiveVersions(prior, before, observed({ '/': [tech('jquery', '3.6.0')] }), new Set());
    expect(home.has('jquery')).toBe(false);
    // A re-crawl reading the blog again without 1.12.4 drops it.
    const crawl = planLiveVersions(
      prior,
      before,
      observed({ '/': [tech('jquery', '3.6.0')], '/blog': [tech('jquery', '3.6.0')] }),
      new Set(),
    );
    expect(versions(crawl, 'jquery')).toEqual([['3.6.0', ['/', '/blog']]]);
  });

  it('leaves a version alone where the page showed the technology without one', () => {
    const prior = [row('jquery', '1.12.4', ['/'])];
    const before = [stored('jquery', '1.12.4', ['/'])];
    const plan = planLiveVersions(prior, before, observed({ '/': [tech('jquery')] }), new Set());
    expect(plan.has('jquery')).toBe(false);
  });

  it('has no rows for a removed technology, and empties the versions of one still on other pages', () => {
    const prior = [row('jquery', '1.12.4', ['/']), row('wordpress', '6.4.2', ['/', '/contact'])];
    const before = [stored('jquery', '1.12.4', ['/']), stored('wordpress', '6.4.2', ['/'])];
    const plan = planLiveVersions(prior, before, observed({ '/': [] }), new Set(['jquery']));
    expect(versions(plan, 'jquery')).toEqual([]);
    expect(versions(plan, 'wordpress')).toEqual([['', []]]);
  });

  it('reads a less precise version as the same release, and starts rows written before the table from the best version', () => {
    const plan = planLiveVersions(
      [row('jquery', '3.6.0', [])],
      [],
      observed({ '/': [tech('jquery', '3.6.0', '3.6', '1.12.4')] }),
      new Set(),
    );
    // The stored best version had no evidence (written without an analysis): some crawled page.
    expect(versions(plan, 'jquery')).toEqual([
      ['1.12.4', ['/']],
      ['3.6.0', ['/', '*']],
    ]);
  });
});
