import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { ChangingSite, GENEROUS_FETCHES, startChangingSite } from '../changes/changing-site';
import { ListsKit, parseCsv, startListsKit, unzip } from '../lists/lists-kit';
import { NVD_FIXTURE, OSV_FIXTURE } from './exposure-sites';

const page = (...files: string[]) =>
  `<!doctype html><html><head><title>Shop</title>${files.map((f) => `<script src="/js/${f}"></script>`).join('')}` +
  '</head><body>shop</body></html>';
/** A theme's old jQuery and a plugin's newer one, on one page. */
const BOTH = page('jquery-1.12.4.min.js', 'jquery-3.6.0.min.js');

/**
 * Concurrent versions of one technology on a site (issue 33), on SQLite and (with
 * TEST_DATABASE_URL) MariaDB: a real local site serving jQuery 1.12.4 and 3.6.0 at once is analysed
 * through the service; exposure per site, the reverse query, the SBOM, the lists' vulnerabilities
 * filter and GraphQL judge both versions; analysed again without 1.12.4, the site drops it.
 */
describe('two versions of one technology on a site', () => {
  let kit: ListsKit;
  let two: ChangingSite;
  let one: ChangingSite;
  let key: string;
  const services = () => kit.service.running.services;
  const get = (path: string) => {
    kit.service.clock.advance(1000);
    return kit.call(path, key);
  };
  const analyze = async (site: ChangingSite) =>
    expect((await services().analyzer.analyzePage(site.url)).ok).toBe(true);
  /** Per vulnerability id: the versions it matches on the site's jQuery, and how. */
  const exposureOf = async (site: ChangingSite) => {
    const res = await get(`/v2/exposure/?urls=${site.url}`);
    expect(res.status).toBe(200);
    const jquery = res.body[0].technologies.find((t: any) => t.technology === 'jquery');
    return {
      versions: jquery.versions,
      version: jquery.version,
      vulnerabilities: Object.fromEntries(
        jquery.vulnerabilities.map((v: any) => [v.id, `${v.match} ${v.versions.join(',')}`]),
      ),
    };
  };
  const reverse = async (id: string) => {
    const res = await get(`/v2/exposure/sites/?vulnerability=${id}`);
    expect(res.status).toBe(200);
    return res.body.sites.map(
      (s: any) =>
        `${s.domain} ${s.technologies.map((t: any) => `${t.technology}@${t.versions.join('+')}:${t.match}`).join(' ')}`,
    );
  };
  const sbom = async (site: ChangingSite) => {
    const res = await get(`/v2/sbom/?url=${encodeURIComponent(site.url)}`);
    expect(res.status).toBe(200);
    expect(
      await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(JSON.stringify(res.body)),
    ).toBeNull();
    return {
      components: (res.body.components as any[])
        .map((c) => c['bom-ref'])
        .filter((r) => r.startsWith('jquery')),
      // One VEX entry per component a vulnerability affects (its analysis names the version).
      vex: (res.body.vulnerabilities as any[]).reduce<Record<string, string[]>>((out, v) => {
        out[v.id] = [...(out[v.id] ?? []), ...v.affects.map((a: any) => a.ref)].sort();
        return out;
      }, {}),
    };
  };
  const listed = async (vulnerability: string) => {
    const list = await kit.make(key, { vulnerabilities: [vulnerability] });
    if (list.status !== 'Ready') return list.status as string;
    const hosts = new Set<string>();
    for (const [, text] of await unzip((await kit.download(list.sampleUrl)).body))
      for (const row of parseCsv(text)) hosts.add(row.hostname);
    return [...hosts].sort();
  };

  beforeAll(async () => {
    two = await startChangingSite({ '/': BOTH });
    one = await startChangingSite({ '/': page('jquery-3.6.0.min.js') }, '127.0.0.2');
    kit = await startListsKit({
      ...FAST_SETTINGS,
      ...GENEROUS_FETCHES,
      LOG_LEVEL: 'error',
      RECRAWL_PER_MINUTE: '0',
    });
    ({ apiKey: key } = await kit.service.createAccount({ plan: 'business', credits: 1000 }));
    await analyze(two);
    await analyze(one);
    await services().vulnerabilities.importFile(NVD_FIXTURE);
    await services().vulnerabilities.importFile(OSV_FIXTURE);
    // A record over every jQuery below 3.7.0: both versions of the site run inside it.
    const at = new Date('2026-11-27T00:00:00Z');
    await services().vulnerabilities.repository.writeBatch(
      [
        {
          id: 'CVE-2099-0002',
          source: 'nvd',
          summary: 'synthetic: every jQuery below 3.7.0',
          severity: 'HIGH',
          scoreTenths: 75,
          vector: null,
          publishedAt: at,
          modifiedAt: at,
          references: [],
          aliases: [],
          products: [
            {
              product: 'cpe:jquery:jquery',
              spec: JSON.stringify({ kind: 'cpe', version: '*', endExcluding: '3.7.0' }),
            },
          ],
        },
      ],
      at,
    );
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await Promise.all([two, one].map((s) => s?.close()));
  });

  it('judges both versions: exposure, the reverse query (each site once), the SBOM, lists and GraphQL', async () => {
    const exposure = await exposureOf(two);
    expect(exposure.versions).toEqual(['1.12.4', '3.6.0']);
    expect(exposure.versions).toContain(exposure.version);
    expect(exposure.vulnerabilities).toMatchObject({
      // Only the theme's 1.12.4 is inside >= 1.2, < 3.5.0.
      'CVE-2020-11022': 'certain 1.12.4',
      'CVE-2099-0002': 'certain 1.12.4,3.6.0',
    });
    expect((await exposureOf(one)).vulnerabilities).toEqual({ 'CVE-2099-0002': 'certain 3.6.0' });

    expect(await reverse('CVE-2020-11022')).toEqual([`${two.hostname} jquery@1.12.4:certain`]);
    expect(await reverse('GHSA-gxr4-xjj5-5px2')).toEqual([`${two.hostname} jquery@1.12.4:certain`]);
    expect(await reverse('CVE-2099-0002')).toEqual([
      `${two.hostname} jquery@1.12.4+3.6.0:certain`,
      `${one.hostname} jquery@3.6.0:certain`,
    ]);
    // Paged one site at a time: the two-version site is one site of the page.
    const first = await get('/v2/exposure/sites/?vulnerability=CVE-2099-0002&limit=1');
    expect(first.body.sites).toEqual([
      expect.objectContaining({
        domain: two.hostname,
        technologies: [
          {
            technology: 'jquery',
            name: 'jQuery',
            version: '1.12.4',
            versions: ['1.12.4', '3.6.0'],
            match: 'certain',
          },
        ],
      }),
    ]);
    expect(first.body.moreAfter).toMatch(/^\d+$/);

    expect(await sbom(two)).toMatchObject({
      components: ['jquery@1.12.4', 'jquery@3.6.0'],
      vex: { 'CVE-2020-11022': ['jquery@1.12.4'], 'CVE-2099-0002': ['jquery@1.12.4', 'jquery@3.6.0'] },
    });

    expect(await listed('CVE-2020-11022')).toEqual([two.hostname]);
    expect(await listed('CVE-2099-0002')).toEqual([two.hostname, one.hostname].sort());

    kit.service.clock.advance(1000);
    const graph = await kit.service.graphql(
      key,
      `query ($domain: String!) { site(domain: $domain) { technologies { slug currentVersions
        vulnerabilities { id match versions } } } }`,
      { domain: two.hostname },
    );
    expect(graph.body.errors).toBeUndefined();
    const jquery = graph.body.data.site.technologies.find((t: any) => t.slug === 'jquery');
    expect(jquery.currentVersions).toEqual(['1.12.4', '3.6.0']);
    expect(jquery.vulnerabilities).toContainEqual({
      id: 'CVE-2020-11022',
      match: 'certain',
      versions: ['1.12.4'],
    });
  });

  it('drops a version an analysis no longer finds on the page that showed it', async () => {
    two.serve('/', page('jquery-3.6.0.min.js'));
    await analyze(two);
    const exposure = await exposureOf(two);
    expect(exposure.versions).toEqual(['3.6.0']);
    expect(exposure.vulnerabilities).toEqual({ 'CVE-2099-0002': 'certain 3.6.0' });
    expect(await reverse('CVE-2020-11022')).toEqual([]);
    expect(await reverse('CVE-2099-0002')).toEqual([
      `${two.hostname} jquery@3.6.0:certain`,
      `${one.hostname} jquery@3.6.0:certain`,
    ]);
    expect((await sbom(two)).components).toEqual(['jquery@3.6.0']);
    expect(await listed('CVE-2020-11022')).toBe('Insufficient');

    // Served again, the theme's copy is back.
    two.serve('/', BOTH);
    await analyze(two);
    expect((await exposureOf(two)).versions).toEqual(['1.12.4', '3.6.0']);
    expect(await reverse('CVE-2020-11022')).toEqual([`${two.hostname} jquery@1.12.4:certain`]);
  });
});
