import { DetectionEngine, mergeResults } from '../../../src/detection';
import { compilePack, type RawPack } from '../../../src/detection/raw-pack';
import { sampleOf, SAMPLE_LIMITS, type PageSample } from '../../../src/services/analysis/page-samples';
import { sameFingerprints } from '../../../src/services/analysis/site-analyzer';
import { countOnSamples, flagTrendBreaks } from '../../../src/services/fingerprints/trend-breaks';
import { monthVersions } from '../../../src/services/site-index/site-index.service';

const counts = (entries: Record<string, number>) => new Map(Object.entries(entries));
const options = { share: 0.2, minSites: 3 };

describe('flagTrendBreaks', () => {
  it('flags a fall and a rise of more than the share, largest change first', () => {
    const flags = flagTrendBreaks(
      counts({ wordpress: 10, jquery: 20, nginx: 8 }),
      counts({ wordpress: 2, jquery: 30, nginx: 8 }),
      options,
    );
    expect(flags).toEqual([
      { slug: 'jquery', name: 'jquery', before: 20, after: 30, direction: 'rises', change: 0.5 },
      { slug: 'wordpress', name: 'wordpress', before: 10, after: 2, direction: 'falls', change: -0.8 },
    ]);
  });

  it('a rise from zero (a new technology) and a fall to zero (a removed one) are flagged', () => {
    const flags = flagTrendBreaks(counts({ old: 4 }), counts({ acme: 3 }), options);
    expect(flags).toEqual([
      { slug: 'old', name: 'old', before: 4, after: 0, direction: 'falls', change: -1 },
      { slug: 'acme', name: 'acme', before: 0, after: 3, direction: 'rises', change: null },
    ]);
  });

  it('under minSites before and after nothing is flagged, however large the change', () => {
    expect(flagTrendBreaks(counts({ rare: 2 }), counts({ rare: 0, other: 2 }), options)).toEqual([]);
    expect(flagTrendBreaks(counts({ rare: 2 }), counts({ rare: 3 }), options)).toHaveLength(1);
  });

  it('a change of exactly the share is not flagged; a little more is', () => {
    expect(flagTrendBreaks(counts({ a: 10, b: 5 }), counts({ a: 8, b: 6 }), options)).toEqual([]);
    expect(flagTrendBreaks(counts({ a: 10 }), counts({ a: 7 }), options)).toHaveLength(1);
    expect(flagTrendBreaks(counts({ a: 10 }), counts({ a: 9 }), { share: 0, minSites: 1 })).toHaveLength(1);
  });

  it('names come from the map given', () => {
    const [flag] = flagTrendBreaks(counts({ wp: 5 }), counts({}), options, new Map([['wp', 'WordPress']]));
    expect(flag.name).toBe('WordPress');
  });
});

describe('countOnSamples', () => {
  const raw = (html: string): RawPack => ({
    technologies: { Acme: { cats: [1], html }, Other: { cats: [1], meta: { generator: 'Other' } } },
    categories: { '1': { name: 'CMS', priority: 1 } },
    groups: {},
  });
  const page = (siteId: number, html: string): PageSample => ({
    siteId,
    url: `http://s${siteId}.test/`,
    capturedAt: new Date(0),
    input: { url: `http://s${siteId}.test/`, html },
  });
  const pages = [
    page(1, '<div class="acme-a">'),
    page(2, '<div class="acme-b">'),
    page(3, '<div class="acme-a"><meta name="generator" content="Other">'),
    page(4, '<p>nothing</p>'),
    page(5, '<div class="acme-a">'),
  ];

  it('runs both engines on every sample, batch by batch, and counts each technology once per sample', async () => {
    const batches: number[] = [];
    const reader = async function* (size: number) {
      for (let i = 0; i < pages.length; i += size) {
        batches.push(Math.min(size, pages.length - i));
        yield pages.slice(i, i + size);
      }
    };
    const result = await countOnSamples(
      new DetectionEngine(compilePack(raw('acme-[ab]')), 'v1'),
      new DetectionEngine(compilePack(raw('acme-b')), 'v2'),
      reader,
      2,
    );
    expect(batches).toEqual([2, 2, 1]);
    expect(result.samples).toBe(5);
    expect(result.failed).toBe(0);
    expect(Object.fromEntries(result.before)).toEqual({ acme: 4, other: 1 });
    expect(Object.fromEntries(result.after)).toEqual({ acme: 1, other: 1 });
    expect(flagTrendBreaks(result.before, result.after, options, result.names)).toEqual([
      { slug: 'acme', name: 'Acme', before: 4, after: 1, direction: 'falls', change: -0.75 },
    ]);
  });
});

describe('provenance helpers', () => {
  it('the engine stamps its version; mergeResults keeps one version, or lists distinct ones', () => {
    const engine = new DetectionEngine(
      compilePack({ technologies: {}, categories: {}, groups: {} }),
      'fp-0123456789ab',
    );
    const one = engine.analyze({ url: 'http://a.test/', html: '' });
    expect(one.fingerprintsVersion).toBe('fp-0123456789ab');
    expect(mergeResults([one, one]).fingerprintsVersion).toBe('fp-0123456789ab');
    expect(mergeResults([one, { ...one, fingerprintsVersion: 'fp-b' }, one]).fingerprintsVersion).toBe(
      'fp-0123456789ab,fp-b',
    );
  });

  it("a month's versions: the latest last, each once, the unrecorded one left out, at most four", () => {
    expect(monthVersions([], 'a')).toEqual(['a']);
    expect(monthVersions(['a', 'b'], 'a')).toEqual(['b', 'a']);
    expect(monthVersions(['a'], '')).toEqual(['a']);
    expect(monthVersions(['a', 'b', 'c', 'd'], 'e')).toEqual(['b', 'c', 'd', 'e']);
  });

  it('a stored page is reused on 304 only when these fingerprints produced its result', async () => {
    const page = (version?: string) => ({
      url: 'http://a.test/',
      links: [],
      hostnames: [],
      languages: [],
      payload: { result: { technologies: [], skipped: [], fingerprintsVersion: version } },
    });
    const memory = (version?: string) => sameFingerprints({ recall: async () => page(version) }, 'fp-new');
    expect(await memory('fp-new').recall('http://a.test/')).toBeDefined();
    expect(await memory('fp-old').recall('http://a.test/')).toBeUndefined();
    expect(await memory(undefined).recall('http://a.test/')).toBeUndefined();
  });

  it('a sample keeps the html as the engine bounds it and script bodies within their total', () => {
    const html = 'a'.repeat(7_000_000);
    const scripts = Array.from({ length: 5 }, () => 's'.repeat(900_000));
    const sample = sampleOf({
      url: 'http://a.test/',
      html,
      scripts,
      rendered: { html: '<p>', js: {}, xhr: [] },
    });
    expect(sample.html.length).toBe(6_000_001);
    expect(sample.scripts!.join('').length).toBe(SAMPLE_LIMITS.scriptsTotal);
    expect(sample.scripts!.map((s) => s.length)).toEqual([900_000, 900_000, 200_000]);
    expect(sample.rendered).toBeUndefined();
  });
});
