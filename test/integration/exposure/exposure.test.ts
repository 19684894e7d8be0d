import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { ZipFile } from 'yazl';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { ChangingSite, GENEROUS_FETCHES } from '../changes/changing-site';
import { NVD_FIXTURE, OSV_FIXTURE, startExposureSites } from './exposure-sites';
import { inVersionOrder } from '../../../src/services/vulns/version-compare';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { statementsDuring } from '../../helpers/sql-statements';
import { startTestService, TestService } from '../../helpers/test-service';

const NVD = NVD_FIXTURE;
const OSV = OSV_FIXTURE;

/**
 * Vulnerability import and exposure on SQLite and (with TEST_DATABASE_URL) MariaDB: real NVD 2.0
 * and OSV fixtures imported through the service the CLI calls, real local sites serving known
 * versions of WordPress and of browser libraries, then GET /v2/exposure/ and /v2/exposure/sites/
 * (certain vs possible, aliases merged, paging, filters, credits, bad input) and GraphQL.
 */
describe('vulnerability import and exposure', () => {
  let service: TestService;
  let contract: OpenApiDocument;
  let a: ChangingSite;
  let b: ChangingSite;
  let c: ChangingSite;
  let apiKey: string;
  let accountId: number;
  let scratch: string;
  const services = () => service.running.services;
  const get = async (path: string, key: string | null = apiKey) => {
    service.clock.advance(1000);
    const res = await service.request(path, { key: key ?? undefined });
    expectMatchesContract(contract, 'GET', path, res.status, res.body, res.headers);
    return res;
  };
  const balance = () => service.balance(accountId);
  const records = async () =>
    Number((await services().db.query<{ n: number }[]>('SELECT COUNT(*) AS n FROM vulnerabilities'))[0].n);

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'vulns-'));
    ({ a, b, c } = await startExposureSites());
    service = await startTestService({ ...FAST_SETTINGS, ...GENEROUS_FETCHES, LOG_LEVEL: 'error' });
    ({ apiKey, accountId } = await service.createAccount({ plan: 'large', credits: 1000 }));
    contract = await fetchOpenApiDocument(service.url);
    for (const site of [a, b, c]) expect((await services().analyzer.analyzePage(site.url)).ok).toBe(true);
    // Ranks as the worker computes them (at its start and hourly), settled here so that a start-up
    // refresh finishing late cannot change the answers under the test.
    await services().trafficRanks.refreshObservedRanks();
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([a, b, c].map((s) => s?.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('imports an NVD 2.0 feed and OSV records, idempotently, newer modified winning', async () => {
    const nvd = await services().vulnerabilities.importFile(NVD);
    // The rejected CVE and the one with no matchable product are read and skipped.
    expect(nvd).toMatchObject({ kind: 'nvd', read: 7, skipped: 1, added: 6, updated: 0, unchanged: 0 });
    const osv = await services().vulnerabilities.importFile(OSV);
    expect(osv).toMatchObject({ kind: 'osv', read: 3, skipped: 0, added: 3 });
    // Again: nothing changes.
    expect(await services().vulnerabilities.importFile(NVD)).toMatchObject({
      added: 0,
      updated: 0,
      unchanged: 6,
    });
    // A gzip feed whose one record is newer replaces it; an older one is ignored.
    const doc = JSON.parse(readFileSync(NVD, 'utf8'));
    const older = structuredClone(doc);
    doc.vulnerabilities = [doc.vulnerabilities[0]];
    doc.vulnerabilities[0].cve.lastModified = '2026-01-01T00:00:00.000';
    doc.vulnerabilities[0].cve.descriptions[0].value = 'Updated description';
    writeFileSync(join(scratch, 'newer.json.gz'), gzipSync(JSON.stringify(doc)));
    expect(await services().vulnerabilities.importFile(join(scratch, 'newer.json.gz'))).toMatchObject({
      updated: 1,
    });
    older.vulnerabilities = [older.vulnerabilities[0]];
    writeFileSync(join(scratch, 'older.json'), JSON.stringify(older));
    expect(await services().vulnerabilities.importFile(join(scratch, 'older.json'))).toMatchObject({
      unchanged: 1,
    });
    const status = await services().vulnerabilities.status();
    expect(status.sources.map((s) => [s.source, s.records])).toEqual([
      ['nvd', 6],
      ['osv', 3],
    ]);
    expect(status.newest?.id).toBe('CVE-2019-11358');
  });

  it('reads OSV zips, and refuses a truncated gzip, a wrong schema and bad JSON without writing anything', async () => {
    const zip = new ZipFile();
    zip.addBuffer(readFileSync(join(OSV, 'npm', 'GHSA-35jh-r3h4-6jhm.json')), 'npm/GHSA-35jh-r3h4-6jhm.json');
    zip.addBuffer(Buffer.from('not json'), 'README.md');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    writeFileSync(join(scratch, 'npm.zip'), Buffer.concat(chunks));
    expect(await services().vulnerabilities.importFile(join(scratch, 'npm.zip'))).toMatchObject({
      kind: 'osv',
      read: 1,
      unchanged: 1,
    });

    const before = await records();
    const whole = gzipSync(readFileSync(NVD));
    writeFileSync(join(scratch, 'truncated.json.gz'), whole.subarray(0, Math.floor(whole.length * 0.6)));
    const wrong = JSON.parse(readFileSync(NVD, 'utf8'));
    wrong.vulnerabilities.push({ cve: { id: 'not-a-cve' } });
    wrong.vulnerabilities[0].cve.lastModified = '2027-01-01T00:00:00.000';
    writeFileSync(join(scratch, 'wrong.json'), JSON.stringify(wrong));
    writeFileSync(join(scratch, 'nvd11.json'), JSON.stringify({ CVE_data_type: 'CVE', CVE_Items: [] }));
    writeFileSync(join(scratch, 'cut.json'), readFileSync(NVD, 'utf8').slice(0, 3000));
    writeFileSync(join(scratch, 'osv-bad.json'), JSON.stringify({ id: 'GHSA-x', affected: [] }));
    for (const [file, message] of [
      ['truncated.json.gz', /gzip stream is truncated or corrupt/],
      ['wrong.json', /vulnerabilities\[7\] is not an NVD CVE 2.0 item/],
      ['nvd11.json', /NVD 1\.1 feed/],
      ['cut.json', /not valid JSON/],
      ['osv-bad.json', /is not an OSV record/],
      ['missing.json', /cannot be read/],
    ] as const)
      await expect(services().vulnerabilities.importFile(join(scratch, file))).rejects.toThrow(message);
    expect(await records()).toBe(before);
    // The record the wrong file would have updated first is as it was.
    const [cve] = await services().vulnerabilities.repository.named('CVE-2019-11358');
    expect(cve.modifiedAt.toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it('answers a site’s exposure from the index: certain, possible, aliases merged; 1 credit per URL found', async () => {
    const start = await balance();
    const res = await get(`/v2/exposure/?urls=${a.url},${b.url},http://not-indexed.test/`);
    expect(res.status).toBe(200);
    const [onA, onB, missing] = res.body;
    expect(missing).toEqual({
      url: 'http://not-indexed.test/',
      technologies: [],
      errors: ['The site is not in the index'],
    });
    const summary = (item: any) =>
      Object.fromEntries(
        item.technologies.map((t: any) => [
          `${t.technology}@${t.version ?? ''}`,
          t.vulnerabilities.map((v: any) => `${v.id}:${v.match}`).sort(),
        ]),
      );
    expect(summary(onA)).toEqual({
      'jquery@3.4.1': ['CVE-2020-11022:certain'],
      // CVE-2023-99990 ends at 6.4 inclusive: 6.4.2 is above it.
      'wordpress@6.4.2': ['CVE-2024-4439:certain'],
    });
    expect(summary(onB)).toEqual({
      'lodash@': ['GHSA-35jh-r3h4-6jhm:possible'],
      'wordpress@6.5.0': ['CVE-2024-4439:certain'],
    });
    const jquery = onA.technologies.find((t: any) => t.technology === 'jquery').vulnerabilities[0];
    expect(jquery).toMatchObject({
      id: 'CVE-2020-11022',
      aliases: ['GHSA-gxr4-xjj5-5px2'],
      severity: 'MEDIUM',
      score: 6.1,
      fixedVersions: ['3.5.0'],
      match: 'certain',
    });
    const wordpress = onA.technologies.find((t: any) => t.technology === 'wordpress').vulnerabilities;
    // Highest score first; CVSS v4.0 preferred when the record has it.
    expect(wordpress[0]).toMatchObject({
      id: 'CVE-2024-4439',
      score: 8.8,
      vector: expect.stringMatching(/^CVSS:4\.0/),
    });
    expect(onB.technologies.find((t: any) => t.technology === 'lodash').vulnerabilities[0]).toMatchObject({
      score: 7.2,
      severity: 'HIGH',
      fixedVersions: ['4.17.21'],
    });
    expect(start - (await balance())).toBe(2);
  });

  it('lists the sites running an affected version, by CVE or by alias, paged with moreAfter, filtered', async () => {
    const ranks = new Map(
      (
        await services().db.query<{ hostname: string; traffic_rank: number | null }[]>(
          'SELECT hostname, traffic_rank FROM sites',
        )
      ).map((row) => [row.hostname, row.traffic_rank === null ? null : Number(row.traffic_rank)]),
    );
    const rankOf = (host: string): { trafficRank?: number } => {
      const rank = ranks.get(host);
      return rank === null || rank === undefined ? {} : { trafficRank: rank };
    };
    const start = await balance();
    const jquery = await get('/v2/exposure/sites/?vulnerability=CVE-2020-11022');
    expect(jquery.status).toBe(200);
    expect(jquery.body.vulnerability).toMatchObject({
      id: 'CVE-2020-11022',
      aliases: ['GHSA-gxr4-xjj5-5px2'],
    });
    expect(jquery.body.sites).toEqual([
      {
        domain: a.hostname,
        ...rankOf(a.hostname),
        technologies: [
          { technology: 'jquery', name: 'jQuery', version: '3.4.1', versions: ['3.4.1'], match: 'certain' },
        ],
      },
    ]);
    expect(jquery.body.moreAfter).toBeUndefined();
    const byAlias = await get('/v2/exposure/sites/?vulnerability=GHSA-gxr4-xjj5-5px2');
    expect(byAlias.body.sites).toEqual(jquery.body.sites);

    const all = (await get('/v2/exposure/sites/?vulnerability=CVE-2024-4439')).body.sites.map(
      (s: any) => s.domain,
    );
    expect(all).toEqual([a.hostname, b.hostname]);
    const first = await get('/v2/exposure/sites/?vulnerability=CVE-2024-4439&limit=1');
    expect(first.body.sites.map((s: any) => s.domain)).toEqual([a.hostname]);
    expect(first.body.moreAfter).toMatch(/^\d+$/);
    const second = await get(
      `/v2/exposure/sites/?vulnerability=CVE-2024-4439&limit=1&after=${first.body.moreAfter}`,
    );
    expect(second.body.sites.map((s: any) => s.domain)).toEqual([b.hostname]);
    expect(second.body.moreAfter).toBeUndefined();

    // Sites without a country or a rank are not in a filtered answer; the lodash site has no version.
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-2024-4439&countries=de')).body.sites).toEqual(
      [],
    );
    const ranked = [a.hostname, b.hostname].filter((host) => (rankOf(host).trafficRank ?? Infinity) <= 1000);
    expect(
      (await get('/v2/exposure/sites/?vulnerability=CVE-2024-4439&rank=1000')).body.sites.map(
        (s: any) => s.domain,
      ),
    ).toEqual(ranked);
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-2021-23337')).body.sites).toEqual([]);
    // Pages of one or two sites: one credit each; empty pages are free.
    expect(start - (await balance())).toBe(ranked.length > 0 ? 6 : 5);

    // The lodash site has no version: possibly affected, listed when asked for, flagged, never certain.
    const lodash = {
      domain: b.hostname,
      ...rankOf(b.hostname),
      technologies: [{ technology: 'lodash', name: 'Lodash', versions: [], match: 'possible' }],
    };
    const possible = await get('/v2/exposure/sites/?vulnerability=CVE-2021-23337&match=possible');
    expect(possible.body.sites).toEqual([lodash]);
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-2021-23337&match=any')).body.sites).toEqual([
      lodash,
    ]);
    // jQuery 3.4.1 on a is certain, 3.7.1 on c is outside the range: nothing possible.
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-2020-11022&match=possible')).body.sites).toEqual(
      [],
    );
    expect(
      (await get('/v2/exposure/sites/?vulnerability=CVE-2020-11022&match=any')).body.sites.map(
        (s: any) => s.domain,
      ),
    ).toEqual([a.hostname]);
  });

  it('refuses bad input with a 400 naming the parameter, an unknown vulnerability with a 404, charging nothing', async () => {
    const start = await balance();
    for (const [path, parameter] of [
      ['/v2/exposure/', 'urls'],
      ['/v2/exposure/?urls=a.com,b.com,c.com,d.com,e.com,f.com,g.com,h.com,i.com,j.com,k.com', 'urls'],
      ['/v2/exposure/sites/', 'vulnerability'],
      ['/v2/exposure/sites/?vulnerability=not%20an%20id', 'vulnerability'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&limit=0', 'limit'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&after=x', 'after'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&rank=5', 'rank'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&countries=deu', 'countries'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&match=maybe', 'match'],
      ['/v2/exposure/sites/?vulnerability=CVE-2020-11022&sort=x', 'sort'],
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(JSON.stringify(res.body)).toContain(parameter);
    }
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-1999-0001')).status).toBe(404);
    expect((await get('/v2/exposure/sites/?vulnerability=CVE-2020-11022', null)).status).toBe(403);
    expect(await balance()).toBe(start);
  });

  it('puts the same vulnerabilities in the SBOM as its VEX section, valid CycloneDX 1.6', async () => {
    const vex = async (url: string) => {
      const res = await get(`/v2/sbom/?url=${encodeURIComponent(url)}`);
      expect(res.status).toBe(200);
      expect(
        await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(res.body)),
      ).toBeNull();
      return Object.fromEntries(
        (res.body.vulnerabilities as any[]).map((v) => [
          v.id,
          v.affects.map((a: { ref: string }) => a.ref).sort(),
        ]),
      );
    };
    expect(await vex(a.url)).toEqual({
      'CVE-2020-11022': ['jquery@3.4.1'],
      'CVE-2024-4439': ['wordpress@6.4.2'],
    });
    expect(await vex(b.url)).toEqual({
      'GHSA-35jh-r3h4-6jhm': ['lodash'],
      'CVE-2024-4439': ['wordpress@6.5.0'],
    });
  });

  it('serves the same through GraphQL: vulnerability(id).affectedSites and site technologies’ vulnerabilities', async () => {
    service.clock.advance(1000);
    const res = await service.graphql(
      apiKey,
      `query ($id: String!, $domain: String!) {
        vulnerability(id: $id) { id aliases severity score summary affectedSites(first: 10) { sites { domain } moreAfter } }
        site(domain: $domain) { technologies { slug version vulnerabilities { id aliases match fixedVersions } } }
        lodash: vulnerability(id: "CVE-2021-23337") {
          affectedSites(match: "possible") { sites { domain technologies { technology version match } } }
        }
      }`,
      { id: 'GHSA-gxr4-xjj5-5px2', domain: a.hostname },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.lodash.affectedSites.sites).toEqual([
      { domain: b.hostname, technologies: [{ technology: 'lodash', version: null, match: 'possible' }] },
    ]);
    expect(res.body.data.vulnerability).toMatchObject({
      id: 'GHSA-gxr4-xjj5-5px2',
      aliases: ['CVE-2020-11022'],
      score: 6.1,
      affectedSites: { sites: [{ domain: a.hostname }], moreAfter: null },
    });
    const jquery = res.body.data.site.technologies.find((t: any) => t.slug === 'jquery');
    expect(jquery.vulnerabilities).toEqual([
      { id: 'CVE-2020-11022', aliases: ['GHSA-gxr4-xjj5-5px2'], match: 'certain', fixedVersions: ['3.5.0'] },
    ]);
  });

  it('reads the vulnerabilities of all the technologies of an answer’s sites together, each as read alone', async () => {
    const TECHNOLOGIES =
      'domain technologies { slug version currentVersions live vulnerabilities { id aliases severity score match fixedVersions } }';
    type GraphSite = {
      domain: string;
      technologies: {
        slug: string;
        version: string | null;
        currentVersions: string[];
        live: boolean;
        vulnerabilities: unknown[];
      }[];
    };
    /** The answer's sites, and the reads of vulnerability records the query made. */
    const ask = async (
      query: string,
      variables: Record<string, unknown>,
      sitesOf: (data: any) => GraphSite[],
    ) => {
      let sites: GraphSite[] = [];
      const statements = await statementsDuring(services().db, async () => {
        service.clock.advance(1000);
        const res = await service.graphql(apiKey, query, variables);
        expect(res.body.errors).toBeUndefined();
        sites = sitesOf(res.body.data);
      });
      return { sites, reads: statements.filter((q) => q.includes('vulnerability_products')).length };
    };
    // A page of the sites running a JavaScript library (all three): their technologies at once.
    const page = await ask(
      `{ category(slug: "javascript-libraries") { sites(first: 10) { nodes { ${TECHNOLOGIES} } } } }`,
      {},
      (data) => data.category.sites.nodes,
    );
    expect(page.sites.map((site) => site.domain).sort()).toEqual([a.hostname, b.hostname, c.hostname].sort());
    const technologies = page.sites.flatMap((site) => site.technologies);
    expect(technologies.filter((t) => t.live).length).toBeGreaterThan(5);
    expect(page.reads).toBe(1);
    // Three site fields: each resolves on its own, so at most one read each, not one per technology.
    const fields = await ask(
      `query ($a: String!, $b: String!, $c: String!) {
        a: site(domain: $a) { ${TECHNOLOGIES} } b: site(domain: $b) { ${TECHNOLOGIES} } c: site(domain: $c) { ${TECHNOLOGIES} }
      }`,
      { a: a.hostname, b: b.hostname, c: c.hostname },
      (data) => [data.a, data.b, data.c],
    );
    expect(fields.reads).toBeLessThanOrEqual(3);
    expect(fields.sites.sort((x, y) => x.domain.localeCompare(y.domain))).toEqual(
      page.sites.sort((x, y) => x.domain.localeCompare(y.domain)),
    );

    // Each technology's answer is what the service answers for it alone.
    for (const site of page.sites)
      for (const t of site.technologies) {
        const alone = t.live
          ? (await services().exposure.vulnerabilitiesOfAll([{ slug: t.slug, versions: t.currentVersions }]))
              .found[0]
          : [];
        expect([site.domain, t.slug, t.vulnerabilities]).toEqual([
          site.domain,
          t.slug,
          alone.map((v) => ({
            id: v.id,
            aliases: v.aliases,
            severity: v.severity ?? null,
            score: v.score ?? null,
            match: v.match,
            fixedVersions: v.fixedVersions,
          })),
        ]);
      }
    expect(technologies.find((t) => t.slug === 'jquery' && t.version === '3.4.1')?.vulnerabilities).toEqual([
      expect.objectContaining({ id: 'CVE-2020-11022', match: 'certain' }),
    ]);
  });

  it('pages the reverse query exactly as one unpaged read, with rank and country filters, certain and possible', async () => {
    // A synthetic slice of index written directly: 160 sites with jQuery versions inside, outside and
    // without a version, some running two jQuery versions at once, some rows no longer live, some
    // with WordPress too; ranks on most of them.
    const db = services().db;
    const when = db.dialect === 'sqlite' ? '2026-11-27 00:00:00.000' : new Date('2026-11-27T00:00:00Z');
    const jqueryVersions = ['1.12.4', '3.4.1', '3.7.1', '', '2.2.4', 'beta', '3.5.0'];
    const planned: {
      host: string;
      rank: number | null;
      country: string;
      techs: [string, string[], boolean][];
    }[] = [];
    for (let n = 0; n < 160; n++) {
      const techs: [string, string[], boolean][] = [];
      const jquery = jqueryVersions[(n * 5) % jqueryVersions.length];
      // A theme's copy and a plugin's: a second version on every sixth site that has one.
      const second = jqueryVersions[(n * 3 + 1) % jqueryVersions.length];
      const versions =
        jquery === '' ? [] : n % 6 === 2 && second !== '' && second !== jquery ? [jquery, second] : [jquery];
      if (n % 9 !== 4) techs.push(['jquery', versions, n % 17 !== 3]);
      if (n % 4 === 1) techs.push(['wordpress', n % 8 === 1 ? ['6.4.2'] : [], true]);
      planned.push({
        host: `exposure-${n}.example`,
        rank: n % 5 === 0 ? null : ((n * 7919) % 1500) + 1,
        country: ['DE', 'FR', 'US'][n % 3],
        techs,
      });
    }
    for (const site of planned)
      await db.query(
        'INSERT INTO sites (hostname, domain, tld, is_subdomain, language, languages, country, hits, traffic_rank, ' +
          'rank_source, language_count, sets_mask, enriched_at, crawl_attempted_at, first_seen_at, last_analyzed_at) ' +
          "VALUES (?, ?, '.example', ?, 'en', '[]', ?, 0, ?, ?, 1, 0, ?, ?, ?, ?)",
        [
          site.host,
          site.host,
          false,
          site.country,
          site.rank,
          site.rank === null ? null : 'import',
          when,
          when,
          when,
          when,
        ],
      );
    const idOf = new Map(
      (
        await db.query<{ id: number; hostname: string }[]>(
          "SELECT id, hostname FROM sites WHERE tld = '.example'",
        )
      ).map((r) => [r.hostname, Number(r.id)]),
    );
    for (const site of planned)
      for (const [slug, versions, live] of site.techs) {
        await db.query(
          'INSERT INTO site_technologies (site_id, slug, name, version, version_key, versions, confidence, root_path, ' +
            "first_seen_at, confirmed_at, live) VALUES (?, ?, ?, ?, '', '[]', 100, ?, ?, ?, ?)",
          [idOf.get(site.host), slug, slug, versions[0] ?? '', true, when, when, live],
        );
        // The versions on the site now: rows only while the technology is live, '' without a version.
        if (live)
          for (const version of versions.length > 0 ? versions : [''])
            await db.query(
              'INSERT INTO site_technology_live_versions (site_id, slug, version, evidence_paths) VALUES (?, ?, ?, \'["/"]\')',
              [idOf.get(site.host), slug, version],
            );
      }
    // One record over both technologies: jQuery below 3.5.0, WordPress up to 6.4.2.
    const at = new Date('2026-11-27T00:00:00Z');
    await services().vulnerabilities.repository.writeBatch(
      [
        {
          id: 'CVE-2099-0001',
          source: 'nvd',
          summary: 'synthetic',
          severity: null,
          scoreTenths: null,
          vector: null,
          publishedAt: at,
          modifiedAt: at,
          references: [],
          aliases: [],
          products: [
            {
              product: 'cpe:jquery:jquery',
              spec: JSON.stringify({
                kind: 'cpe',
                version: '*',
                startIncluding: '1.0',
                endExcluding: '3.5.0',
              }),
            },
            {
              product: 'cpe:wordpress:wordpress',
              spec: JSON.stringify({ kind: 'cpe', version: '*', endIncluding: '6.4.2' }),
            },
          ],
        },
      ],
      at,
    );
    const stored = new Map(
      (
        await db.query<
          { id: number; hostname: string; country: string | null; traffic_rank: number | null }[]
        >('SELECT id, hostname, country, traffic_rank FROM sites')
      ).map((r) => [
        Number(r.id),
        { ...r, traffic_rank: r.traffic_rank === null ? null : Number(r.traffic_rank) },
      ]),
    );
    const technologies = await db.query<{ site_id: number; slug: string; version: string }[]>(
      'SELECT site_id, slug, version FROM site_technology_live_versions',
    );
    const affected = (slug: string, version: string) =>
      slug === 'jquery'
        ? ['1.12.4', '3.4.1', '2.2.4'].includes(version)
        : slug === 'wordpress' && ['6.4.2'].includes(version);
    const reference = (match: string, rank: number | null, countries: string[]) => {
      // Per site and technology: the versions that match and whether any certainly does.
      const bySite = new Map<number, Map<string, { versions: string[]; certain: boolean }>>();
      for (const t of technologies) {
        if (!['jquery', 'wordpress'].includes(t.slug)) continue;
        const possible = !/\d/.test(t.version);
        const certain = !possible && affected(t.slug, t.version);
        if (!((match !== 'possible' && certain) || (match !== 'certain' && possible))) continue;
        const site = stored.get(Number(t.site_id))!;
        if (rank !== null && (site.traffic_rank === null || site.traffic_rank > rank)) continue;
        if (countries.length > 0 && !countries.includes(site.country ?? '')) continue;
        const slugs = bySite.get(Number(t.site_id)) ?? new Map();
        const found = slugs.get(t.slug) ?? { versions: [], certain: false };
        if (t.version !== '') found.versions.push(t.version);
        found.certain ||= certain;
        slugs.set(t.slug, found);
        bySite.set(Number(t.site_id), slugs);
      }
      return [...bySite.keys()]
        .sort((x, y) => x - y)
        .map(
          (id) =>
            `${stored.get(id)!.hostname} ${[...bySite.get(id)!]
              .map(
                ([slug, t]) =>
                  `${slug}@${inVersionOrder(t.versions).join('+')}:${t.certain ? 'certain' : 'possible'}`,
              )
              .sort()
              .join(',')}`,
        );
    };
    // Its own account: every page is charged (1 credit per 10 sites).
    const { apiKey: key } = await service.createAccount({ plan: 'large', credits: 100_000 });
    const read = (site: any) =>
      `${site.domain} ${site.technologies
        .map((t: any) => {
          expect(t.version).toBe(t.versions[0]);
          return `${t.technology}@${t.versions.join('+')}:${t.match}`;
        })
        .sort()
        .join(',')}`;
    for (const match of ['certain', 'possible', 'any'])
      for (const [rank, countries] of [
        [null, []],
        [1000, []],
        [10000, ['DE', 'FR']],
      ] as [number | null, string[]][]) {
        const filters =
          `vulnerability=CVE-2099-0001&match=${match}` +
          (rank !== null ? `&rank=${rank}` : '') +
          (countries.length > 0 ? `&countries=${countries.join(',')}` : '');
        const expected = reference(match, rank, countries);
        expect(expected.length).toBeGreaterThan(5);
        if (match === 'certain' && rank === null) expect(expected.join(' ')).toContain('+');
        const whole = (await get(`/v2/exposure/sites/?${filters}&limit=1000`, key)).body;
        expect([filters, whole.sites.map(read)]).toEqual([filters, expected]);
        expect(whole.moreAfter).toBeUndefined();
        // Small pages read each pair's range; larger ones the ranked sites first (the plan follows the sizes).
        for (const limit of [2, 11, 60]) {
          const pages: string[] = [];
          let after: string | undefined;
          for (let guard = 0; guard < 500; guard++) {
            const page = (
              await get(`/v2/exposure/sites/?${filters}&limit=${limit}${after ? `&after=${after}` : ''}`, key)
            ).body;
            expect(page.sites.length).toBeLessThanOrEqual(limit);
            pages.push(...page.sites.map(read));
            after = page.moreAfter;
            if (!after) break;
            // Every page but the last is full.
            expect(page.sites.length).toBe(limit);
          }
          expect([filters, limit, pages]).toEqual([filters, limit, expected]);
        }
      }
  });
});
