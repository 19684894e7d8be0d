import type { DetectedTechnology } from '../../../src/detection';
import { ENRICHMENT_SETS, type SiteEnrichment } from '../../../src/enrichment';
import { statementsDuring } from '../../helpers/sql-statements';
import { startTestService, TestService } from '../../helpers/test-service';

/** Sites of the index in the test: every one runs jQuery, every third WordPress too. */
const SITES = 60;
const host = (i: number) => `site${String(i).padStart(2, '0')}.example`;
const jqueryVersion = (i: number) => (i % 2 === 0 ? '3.7.1' : '1.12.4');

/**
 * GraphQL as a graph on SQLite and (with TEST_DATABASE_URL) MariaDB: a site's technologies linked
 * to the catalogue and on to the other sites running them, paged with cursors to the end; filters
 * by country, rank, version and live; totalCount; versions, trend, changes and a category's
 * technologies; enrichment and history; bad arguments naming themselves; credits; and the number
 * of SQL statements a page of sites with their technologies costs, counted and found independent of
 * the page's size.
 */
describe('GraphQL graph of the index', () => {
  let service: TestService;
  let apiKey: string;
  let accountId: number;
  const services = () => service.running.services;

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
  const record = (hostname: string, at: Date, technologies: DetectedTechnology[]) =>
    services().siteIndex.record({
      url: `https://${hostname}/`,
      pages: [{ url: `https://${hostname}/`, isRoot: true, technologies, languages: ['en'] }],
      technologies,
      hostnames: [],
      at,
      fingerprintsVersion: 'pack-1',
    });

  /** A GraphQL query with the key; the rate limit's clock moves a second first (5 a second). */
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    service.clock.advance(1000);
    return service.graphql(apiKey, query, variables);
  };
  const data = async (query: string, variables?: Record<string, unknown>) => {
    const res = await gql(query, variables);
    expect(res.body.errors).toBeUndefined();
    return res.body.data;
  };
  const credits = () => service.balance(accountId);

  beforeAll(async () => {
    service = await startTestService({ PUBLIC_RATE_LIMIT_PER_MINUTE: '1000' });
    ({ apiKey, accountId } = await service.createAccount({ plan: 'large', credits: 100_000 }));
    const at = new Date();
    for (let i = 0; i < SITES; i++) {
      const technologies = [detected('jquery', [jqueryVersion(i)])];
      if (i % 3 === 0) technologies.push(detected('wordpress', ['6.5']));
      await record(host(i), at, technologies);
    }
    // Countries and ranks: the first ten sites are German and ranked 1..10, the rest unknown.
    for (let i = 0; i < 10; i++)
      await services().db.query(
        "UPDATE sites SET country = 'DE', traffic_rank = ?, rank_source = 'import' WHERE hostname = ?",
        [i + 1, host(i)],
      );
    // site01 drops jQuery on a later analysis of its only page: removed, not live.
    await record(host(1), new Date(at.getTime() + 1000), []);
    await services().siteIndex.recordEnrichment(
      `https://${host(0)}/`,
      {
        enrichment: {
          ...Object.fromEntries(ENRICHMENT_SETS.map((set) => [set, {}])),
          meta: { title: 'Site zero' },
        } as unknown as SiteEnrichment,
      },
      at,
    );
  });
  afterAll(async () => {
    await service?.stop();
  });

  const SITE_WALK = `query ($domain: String!, $first: Int) {
    site(domain: $domain) {
      domain country trafficRank
      technologies {
        slug version confidence live evidencePaths firstSeenAt lastSeenAt
        versions { version }
        technology { slug name categories { slug } hostnames
          sites(first: $first) { totalCount edges { cursor node { domain } } pageInfo { hasNextPage endCursor } } }
      }
      enrichment { title }
      history(months: 2) { month languages technologies { slug versions } }
    }
  }`;

  it('walks from a site to its technologies, their catalogue entries and the other sites running them', async () => {
    const before = await credits();
    const { site } = await data(SITE_WALK, { domain: host(0), first: 5 });
    expect(site).toMatchObject({
      domain: host(0),
      country: 'DE',
      trafficRank: 1,
      enrichment: { title: 'Site zero' },
    });
    const bySlug = new Map(site.technologies.map((t: { slug: string }) => [t.slug, t]));
    const jquery = bySlug.get('jquery') as any;
    expect(jquery).toMatchObject({ version: '3.7.1', confidence: 100, live: true, evidencePaths: ['/'] });
    expect(jquery.technology).toMatchObject({ slug: 'jquery', name: 'jQuery' });
    // 60 sites ran jQuery; site01 dropped it: 59 live.
    expect(jquery.technology.sites.totalCount).toBe(SITES - 1);
    expect(jquery.technology.sites.edges.map((e: any) => e.node.domain)).toEqual([0, 2, 3, 4, 5].map(host));
    expect(jquery.technology.sites.pageInfo.hasNextPage).toBe(true);
    const wordpress = bySlug.get('wordpress') as any;
    expect(wordpress.technology.sites.totalCount).toBe(SITES / 3);
    expect(site.history).toHaveLength(1);
    expect(site.history[0].technologies.map((t: any) => t.slug).sort()).toEqual(['jquery', 'wordpress']);
    // 1 for the site, 1 per site listed (5 + 5).
    expect(before - (await credits())).toBe(11);
  });

  const PAGE = `query ($slug: String!, $first: Int, $after: String, $filter: SiteFilter) {
    technology(slug: $slug) {
      sites(first: $first, after: $after, filter: $filter) {
        totalCount edges { cursor node { domain } } nodes { domain } pageInfo { hasNextPage endCursor }
      }
    }
  }`;

  it('pages a technology’s sites with cursors to the end, each site once', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const { technology } = await data(PAGE, { slug: 'jquery', first: 7, after });
      const page = technology.sites;
      expect(page.totalCount).toBe(SITES - 1);
      seen.push(...page.edges.map((e: any) => e.node.domain));
      expect(page.nodes.map((n: any) => n.domain)).toEqual(page.edges.map((e: any) => e.node.domain));
      if (!page.pageInfo.hasNextPage) break;
      expect(page.pageInfo.endCursor).toBe(page.edges[page.edges.length - 1].cursor);
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual([...Array(SITES).keys()].filter((i) => i !== 1).map(host));
    // Past the end: an empty page.
    const { technology } = await data(PAGE, { slug: 'jquery', first: 7, after: '999999' });
    expect(technology.sites).toMatchObject({ edges: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  it('filters by country, rank range, version and live', async () => {
    const domains = async (filter: object, slug = 'jquery') =>
      (await data(PAGE, { slug, first: 100, filter })).technology.sites.nodes.map((n: any) => n.domain);
    expect(await domains({ countries: ['de'] })).toEqual([0, 2, 3, 4, 5, 6, 7, 8, 9].map(host));
    expect(await domains({ rankFrom: 3, rankTo: 5 })).toEqual([2, 3, 4].map(host));
    const v1 = await domains({ version: '1' });
    expect(v1).toEqual([...Array(SITES).keys()].filter((i) => i % 2 === 1 && i !== 1).map(host));
    expect(await domains({ version: '3.7', countries: ['DE'] })).toEqual([0, 2, 4, 6, 8].map(host));
    expect(await domains({ version: '3.70' })).toEqual([]);
    expect(await domains({ live: false })).toEqual([host(1)]);
  });

  it('gives a technology’s versions, trend and changes, and a category’s sites and technologies', async () => {
    const { technology, category } = await data(`{
      technology(slug: "jquery") {
        versions(first: 1) { totalCount edges { cursor node { version sites } } pageInfo { hasNextPage endCursor } }
        trend(months: 1) { slug months { sites } }
        changes(first: 3, filter: { kinds: ["removed"] }) { edges { node { domain technology kind } } pageInfo { hasNextPage } }
      }
      category(slug: "cms") {
        sites(first: 2, filter: { countries: ["DE"] }) { totalCount nodes { domain technologies { slug } } }
        technologies(first: 2) { totalCount nodes { slug } pageInfo { hasNextPage endCursor } }
        changes(first: 1) { nodes { technology } }
      }
    }`);
    expect(technology.versions).toMatchObject({
      totalCount: 2,
      edges: [{ cursor: '1', node: { version: '3.7.1', sites: 30 } }],
      pageInfo: { hasNextPage: true, endCursor: '1' },
    });
    const rest = await data(
      `{ technology(slug: "jquery") { versions(first: 5, after: "1") { nodes { version sites } pageInfo { hasNextPage } } } }`,
    );
    expect(rest.technology.versions).toEqual({
      nodes: [{ version: '1.12.4', sites: 29 }],
      pageInfo: { hasNextPage: false },
    });
    expect(technology.trend.slug).toBe('jquery');
    expect(technology.changes.edges).toEqual([
      { node: { domain: host(1), technology: 'jquery', kind: 'removed' } },
    ]);
    // cms: WordPress on sites 0, 3, 6, 9 of the German ten.
    expect(category.sites.totalCount).toBe(4);
    expect(category.sites.nodes.map((n: any) => n.domain)).toEqual([host(0), host(3)]);
    expect(category.technologies.totalCount).toBeGreaterThan(2);
    expect(category.technologies.nodes).toHaveLength(2);
    expect(category.changes.nodes[0].technology).toBe('wordpress');
  });

  it('refuses bad arguments with BAD_REQUEST naming them, and graph fields without a key', async () => {
    const refused = async (query: string, variables?: Record<string, unknown>) => {
      const res = await gql(query, variables);
      return res.body.errors?.[0]?.extensions;
    };
    for (const [first, after, filter, parameter] of [
      [0, null, null, 'first'],
      [101, null, null, 'first'],
      [5, 'abc', null, 'after'],
      [5, null, { countries: ['Germany'] }, 'countries'],
      [5, null, { rankFrom: 0 }, 'rankFrom'],
      [5, null, { version: '1%' }, 'version'],
    ] as const)
      expect(await refused(PAGE, { slug: 'jquery', first, after, filter })).toMatchObject({
        code: 'BAD_REQUEST',
        parameter,
      });
    expect(
      await refused(`{ technology(slug: "jquery") { versions(first: 501) { totalCount } } }`),
    ).toMatchObject({
      code: 'BAD_REQUEST',
      parameter: 'first',
    });
    expect(await refused(`{ site(domain: "${host(0)}") { history(months: 25) { month } } }`)).toMatchObject({
      code: 'BAD_REQUEST',
      parameter: 'months',
    });
    // The same document with a key first: its answer is not kept for the catalogue's other callers.
    const graphQuery = `{ technology(slug: "jquery") { slug sites { totalCount } } }`;
    expect((await data(graphQuery)).technology.sites.totalCount).toBe(SITES - 1);
    const keyless = await service.graphql(undefined, graphQuery);
    expect(keyless.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(keyless.body.data?.technology ?? null).toBeNull();
    // The catalogue fields still answer without a key.
    const plain = await service.graphql(undefined, `{ technology(slug: "jquery") { slug } }`);
    expect(plain.body.data.technology.slug).toBe('jquery');
  });

  it('bounds the index reads of one request', async () => {
    // Below the whole catalogue's list: refused before anything runs.
    const listed = await gql(`{ technologies { slug sites(first: 1) { totalCount } } }`);
    expect(listed.status).toBe(400);
    expect(listed.body.errors[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'sites' });
    // Fifty-one reads through the graph: the fifty-first is refused, naming its field.
    const walk = await gql(
      `{ technology(slug: "jquery") { sites(first: 51) { nodes { domain changes(first: 1) { nodes { id } } } } } }`,
    );
    const refused = walk.body.errors ?? [];
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0].extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: 'changes' });
  });

  it('reads a page of sites with their technologies and catalogue entries in statements independent of its size', async () => {
    const PAGE_WITH_TECHNOLOGIES = `query ($first: Int) {
      technology(slug: "jquery") {
        sites(first: $first) {
          nodes { domain technologies { slug version live versions { version } technology { slug name hostnames categories { slug } } }
                  enrichment { title } history(months: 1) { month } }
        }
      }
    }`;
    // The catalogue's counts are taken once per cache period: taken before counting.
    await data(PAGE_WITH_TECHNOLOGIES, { first: 1 });
    const counts: number[] = [];
    for (const first of [5, 50]) {
      const statements = await statementsDuring(services().db, async () => {
        const { technology } = await data(PAGE_WITH_TECHNOLOGIES, { first });
        expect(technology.sites.nodes).toHaveLength(first);
        expect(
          technology.sites.nodes.every((n: any) => n.technologies.every((t: any) => t.technology?.name)),
        ).toBe(true);
      });
      // The service's background polls (the job runner's claims, the fingerprint set's) aside.
      const background = /\bjobs\b|^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK)|FingerprintActivation/;
      counts.push(statements.filter((q) => !background.test(q)).length);
    }
    // The page, technologies, version sightings, versions on the sites now, enrichments, months and
    // their technologies.
    expect(counts[1]).toBe(counts[0]);
    expect(counts[1]).toBe(7);
  });
});
