import type { DetectedTechnology } from '../../../src/detection';
import type { SiteEnrichment } from '../../../src/enrichment';
import { TrendAggregates1764670000000 } from '../../../src/storage/migrations/1764670000000-trend-aggregates';
import { TrendTotals1764740000000 } from '../../../src/storage/migrations/1764740000000-trend-totals';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';
import { GENEROUS_FETCHES, JQUERY, startChangingSite, wordpressHome } from '../changes/changing-site';

interface TrendMonth {
  month: string;
  sites: number;
  analysedSites: number;
  share: number;
  versions: { version: string; sites: number }[];
  fingerprintsVersions: string[];
  fingerprintsChanged: boolean;
}

const DAY = 86_400_000;

/**
 * GET /v2/trends/{slug}/, /v2/trends/categories/{slug}/ and GraphQL technologyTrend / categoryTrend
 * on SQLite and (with TEST_DATABASE_URL) MariaDB: analyses stored over four months (the analyses'
 * times and the trends' clock moved across months), by country, rank bucket and version, a switch of
 * fingerprint version marked, bad input, unknown slugs; and a real page analysis counted.
 */
describe('trends', () => {
  let service: TestService;
  let contract: OpenApiDocument;
  const services = () => service.running.services;

  const get = async (path: string) => {
    const res = await service.request(path);
    expectMatchesContract(contract, 'GET', path, res.status, res.body, res.headers);
    return res;
  };
  const months = async (path: string): Promise<TrendMonth[]> => {
    const res = await get(path);
    expect(res.status).toBe(200);
    return res.body.months;
  };
  const sites = (series: TrendMonth[]) => series.map((m) => `${m.month} ${m.sites}/${m.analysedSites}`);

  /** The fingerprints' own record of a technology, as detection reports it, with versions seen. */
  const detected = (slug: string, versions: string[] = []): DetectedTechnology => {
    const t = services().fingerprints.current().fingerprints.technologyBySlug(slug)!;
    return {
      name: t.name,
      slug: t.slug,
      categories: t.categories.map(({ id, slug: s, name, priority }) => ({ id, slug: s, name, priority })),
      versions,
      version: versions[0] ?? '',
      confidence: 100,
      icon: '',
      website: '',
      implied: false,
      evidence: [],
    };
  };
  const record = (
    host: string,
    at: string,
    technologies: DetectedTechnology[],
    fingerprintsVersion = 'pack-1',
  ) =>
    services().siteIndex.record({
      url: `https://${host}/`,
      pages: [{ url: `https://${host}/`, isRoot: true, technologies, languages: [] }],
      technologies,
      hostnames: [],
      at: new Date(at),
      fingerprintsVersion,
    });

  beforeAll(async () => {
    service = await startTestService({
      ...FAST_SETTINGS,
      ...GENEROUS_FETCHES,
      PUBLIC_RATE_LIMIT_PER_MINUTE: '1000',
    });
    contract = await fetchOpenApiDocument(service.url);
    // December: four sites analysed bare; then their countries and ranks become known (as imported
    // ranks, which the worker's refresh of observed ranks leaves alone).
    for (const host of ['alpha.de', 'beta.de', 'gamma.fr', 'delta.com'])
      await record(host, '2025-12-10T00:00:00Z', []);
    for (const [host, country, rank] of [
      ['alpha.de', 'DE', 500],
      ['beta.de', 'DE', 50_000],
      ['gamma.fr', 'FR', 5_000],
      ['delta.com', 'US', null],
    ] as const)
      await services().db.query(
        "UPDATE sites SET country = ?, traffic_rank = ?, rank_source = 'import' WHERE hostname = ?",
        [country, rank, host],
      );
    const jquery = (v: string) => detected('jquery', [v]);
    await record('alpha.de', '2026-01-05T00:00:00Z', [jquery('3.6.0')]);
    await record('beta.de', '2026-01-06T00:00:00Z', [jquery('1.12.4')]);
    await record('gamma.fr', '2026-01-07T00:00:00Z', [jquery('3.7.1'), detected('wordpress', ['6.4'])]);
    await record('delta.com', '2026-01-08T00:00:00Z', []);
    await record('alpha.de', '2026-02-03T00:00:00Z', [jquery('3.7.1')]);
    await record('alpha.de', '2026-02-20T00:00:00Z', [jquery('3.7.1')]);
    await record('beta.de', '2026-02-04T00:00:00Z', []);
    await record('gamma.fr', '2026-02-05T00:00:00Z', [detected('wordpress', ['6.5'])]);
    // March: the rules switch to pack-2.
    for (const host of ['alpha.de', 'beta.de', 'gamma.fr'])
      await record(host, '2026-03-02T00:00:00Z', [jquery('3.7.1')], 'pack-2');
    await record('delta.com', '2026-03-09T00:00:00Z', [], 'pack-2');
  });
  afterAll(() => service?.stop());

  it('counts a technology per month: sites, share of the analysed sites, versions, a rule switch marked', async () => {
    const series = await months('/v2/trends/jquery/?months=4&until=2026-03');
    expect(sites(series)).toEqual(['2025-12 0/4', '2026-01 3/4', '2026-02 1/3', '2026-03 3/4']);
    expect(series.map((m) => m.share)).toEqual([0, 0.75, 0.333333, 0.75]);
    expect(series[1].versions).toEqual([
      { version: '1.12.4', sites: 1 },
      { version: '3.6.0', sites: 1 },
      { version: '3.7.1', sites: 1 },
    ]);
    expect(series[3].versions).toEqual([{ version: '3.7.1', sites: 3 }]);
    expect(series.map((m) => [m.fingerprintsVersions, m.fingerprintsChanged])).toEqual([
      [[], false],
      [['pack-1'], false],
      [['pack-1'], false],
      [['pack-2'], true],
    ]);
  });

  it('narrows counts and share by country, rank and version', async () => {
    expect(sites(await months('/v2/trends/jquery/?months=3&until=2026-03&countries=de'))).toEqual([
      '2026-01 2/2',
      '2026-02 1/2',
      '2026-03 2/2',
    ]);
    expect(sites(await months('/v2/trends/jquery/?months=3&until=2026-03&countries=FR,US'))).toEqual([
      '2026-01 1/2',
      '2026-02 0/1',
      '2026-03 1/2',
    ]);
    // Top 10k: alpha.de (500) and gamma.fr (5,000); beta.de (50,000) and the unranked delta.com are out.
    expect(sites(await months('/v2/trends/jquery/?months=3&until=2026-03&rank=10000'))).toEqual([
      '2026-01 2/2',
      '2026-02 1/2',
      '2026-03 2/2',
    ]);
    const three = await months('/v2/trends/jquery/?months=3&until=2026-03&version=3');
    expect(sites(three)).toEqual(['2026-01 2/4', '2026-02 1/3', '2026-03 3/4']);
    expect(three[0].versions.map((v) => v.version)).toEqual(['3.6.0', '3.7.1']);
    expect(sites(await months('/v2/trends/jquery/?months=1&until=2026-01&version=3.7'))).toEqual([
      '2026-01 1/4',
    ]);
  });

  it('counts a category once per site, whatever number of its technologies it runs', async () => {
    const cms = await months('/v2/trends/categories/cms/?months=3&until=2026-03');
    expect(sites(cms)).toEqual(['2026-01 1/4', '2026-02 1/3', '2026-03 0/4']);
    expect(cms.every((m) => m.versions.length === 0)).toBe(true);
    const category = services().fingerprints.current().fingerprints.technologyBySlug('jquery')!.categories[0];
    const libraries = await months(`/v2/trends/categories/${category.slug}/?months=3&until=2026-03`);
    expect(sites(libraries)).toEqual(['2026-01 3/4', '2026-02 1/3', '2026-03 3/4']);
    expect(libraries[2].fingerprintsChanged).toBe(true);
  });

  it('ends the window at the current month of its clock', async () => {
    const clock = service.clock;
    services().trends.clock = clock;
    clock.advance(new Date('2026-02-15T00:00:00Z').getTime() - clock.now());
    expect(sites(await months('/v2/trends/jquery/?months=2'))).toEqual(['2026-01 3/4', '2026-02 1/3']);
    clock.advance(40 * DAY);
    expect(sites(await months('/v2/trends/jquery/?months=1'))).toEqual(['2026-03 3/4']);
  });

  it('answers GraphQL technologyTrend and categoryTrend from the same service', async () => {
    const res = await service.graphql(
      undefined,
      `{ technologyTrend(slug: "jquery", months: 1, until: "2026-03", countries: ["DE"], rank: "100000") {
           slug name months { month sites analysedSites share versions { version sites } fingerprintsChanged } }
         categoryTrend(slug: "cms", months: 1, until: "2026-01") { slug months { sites analysedSites } } }`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data.technologyTrend).toEqual({
      slug: 'jquery',
      name: 'jQuery',
      months: [
        {
          month: '2026-03',
          sites: 2,
          analysedSites: 2,
          share: 1,
          versions: [{ version: '3.7.1', sites: 2 }],
          fingerprintsChanged: true,
        },
      ],
    });
    expect(res.body.data.categoryTrend).toEqual({ slug: 'cms', months: [{ sites: 1, analysedSites: 4 }] });
  });

  it('refuses bad input with a 400 naming the parameter, an unknown slug with a 404', async () => {
    for (const [query, name] of [
      ['months=0', 'months'],
      ['months=61', 'months'],
      ['months=x', 'months'],
      ['countries=DEU', 'countries'],
      ['rank=5000', 'rank'],
      ['until=2026-13', 'until'],
      ['version=' + 'x'.repeat(61), 'version'],
    ]) {
      const res = await get(`/v2/trends/jquery/?${query}`);
      expect([query, res.status]).toEqual([query, 400]);
      expect(JSON.stringify(res.body)).toContain(name);
    }
    expect((await get('/v2/trends/no-such-technology/')).status).toBe(404);
    expect((await get('/v2/trends/categories/no-such-category/')).status).toBe(404);
    const gql = await service.graphql(undefined, '{ technologyTrend(slug: "jquery", months: 0) { slug } }');
    expect(gql.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(gql.body.errors[0].message).toContain('months');
  });

  it('loses no count when analyses of many sites are stored at once (MariaDB runs them in parallel)', async () => {
    const hosts = Array.from({ length: 24 }, (_, i) => `parallel-${i}.com`);
    await Promise.all(
      hosts.map((host, i) => record(host, '2026-04-02T00:00:00Z', [detected('jquery', [`3.${i % 3}.0`])])),
    );
    const [april] = await months('/v2/trends/jquery/?months=1&until=2026-04');
    expect([april.sites, april.analysedSites]).toEqual([24, 24]);
    expect(april.versions).toEqual(['3.0.0', '3.1.0', '3.2.0'].map((version) => ({ version, sites: 8 })));
  });

  it("counts a new site's first month in the country its first enrichment finds", async () => {
    const enrichment = {
      meta: {},
      company: {},
      phone: {},
      email: {},
      contact: {},
      social: {},
      locale: {},
      security: {},
      trackers: {},
      keywords: {},
      signals: {},
      events: {},
    } as SiteEnrichment;
    await record('neu.at', '2026-05-03T00:00:00Z', [detected('jquery', ['3.7.1']), detected('wordpress')]);
    const path = '/v2/trends/jquery/?months=1&until=2026-05';
    expect(sites(await months(`${path}&countries=AT`))).toEqual(['2026-05 0/0']);
    await services().siteIndex.recordEnrichment(
      'https://neu.at/',
      { enrichment, country: 'at' },
      new Date('2026-05-03T00:00:01Z'),
    );
    const [austria] = await months(`${path}&countries=AT`);
    expect([austria.sites, austria.analysedSites, austria.versions]).toEqual([
      1,
      1,
      [{ version: '3.7.1', sites: 1 }],
    ]);
    expect(sites(await months('/v2/trends/categories/cms/?months=1&until=2026-05&countries=AT'))).toEqual([
      '2026-05 1/1',
    ]);
    // Moved, not copied: the whole month still counts the site once.
    expect(sites(await months(path))).toEqual(['2026-05 1/1']);
    // A later enrichment (the country known) moves nothing.
    await services().siteIndex.recordEnrichment(
      'https://neu.at/',
      { enrichment, country: 'de' },
      new Date('2026-05-09T00:00:00Z'),
    );
    expect(sites(await months(`${path}&countries=AT`))).toEqual(['2026-05 1/1']);
  });

  it('keeps the totals over every country equal to the sums of the counts, and backfills them', async () => {
    const db = services().db;
    const sums = async (sql: string) =>
      (await db.query<Record<string, unknown>[]>(sql)).map((r) =>
        JSON.stringify({ ...r, rank_bucket: Number(r.rank_bucket), sites: Number(r.sites) }),
      );
    const fromCounts = () =>
      sums(
        'SELECT kind, name, month, version, rank_bucket, SUM(sites) AS sites FROM trend_counts ' +
          'GROUP BY kind, name, month, version, rank_bucket ORDER BY kind, name, month, version, rank_bucket',
      );
    const totals = () =>
      sums(
        'SELECT kind, name, month, version, rank_bucket, sites FROM trend_totals ' +
          'ORDER BY kind, name, month, version, rank_bucket',
      );
    // The analyses above, a country learned after an analysis (a move between countries) included.
    const kept = await totals();
    expect(kept.length).toBeGreaterThan(20);
    expect(kept).toEqual(await fromCounts());
    const runner = db.dataSource.createQueryRunner();
    try {
      const migration = new TrendTotals1764740000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    expect(await totals()).toEqual(kept);
  });

  it('backfills from the monthly history what the analyses counted as they were stored', async () => {
    const db = services().db;
    // December's sites were counted before their countries and ranks were known, and April's have
    // observed ranks, which the worker may have refreshed since: the backfill knows only today's
    // countries and ranks, so those months differ by design.
    const counts = () =>
      db.query<Record<string, unknown>[]>(
        'SELECT kind, name, month, version, country, rank_bucket, sites FROM trend_counts ' +
          "WHERE month NOT IN ('2025-12', '2026-04', '2026-05') ORDER BY kind, name, month, version, country, rank_bucket",
      );
    const stored = (await counts()).map((r) =>
      JSON.stringify({ ...r, sites: Number(r.sites), rank_bucket: Number(r.rank_bucket) }),
    );
    expect(stored.length).toBeGreaterThan(20);
    const runner = db.dataSource.createQueryRunner();
    try {
      const migration = new TrendAggregates1764670000000();
      await migration.down(runner);
      await migration.up(runner);
    } finally {
      await runner.release();
    }
    const backfilled = (await counts()).map((r) =>
      JSON.stringify({ ...r, sites: Number(r.sites), rank_bucket: Number(r.rank_bucket) }),
    );
    expect(backfilled).toEqual(stored);
  });

  it('counts a real analysis in its month', async () => {
    const site = await startChangingSite({ '/': wordpressHome('6.4.2', JQUERY) }, '127.0.0.3');
    try {
      services().trends.clock = { now: () => Date.now() };
      const before = (await months('/v2/trends/jquery/?months=1'))[0];
      expect((await services().analyzer.analyzePage(site.url)).ok).toBe(true);
      const after = (await months('/v2/trends/jquery/?months=1'))[0];
      expect(after.sites - before.sites).toBe(1);
      expect(after.analysedSites - before.analysedSites).toBe(1);
      expect(after.versions).toContainEqual({ version: '3.7.1', sites: expect.any(Number) });
      expect(after.fingerprintsVersions.length).toBe(1);
    } finally {
      await site.close();
    }
  });
});
