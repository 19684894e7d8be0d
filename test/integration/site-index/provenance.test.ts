import { gunzipSync } from 'node:zlib';
import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { ACME_PAGE, startSampleSites, WORDPRESS_PAGE, type SampleSites } from '../../helpers/sample-sites';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Provenance and page samples on SQLite and (with TEST_DATABASE_URL) MariaDB: an analysis of a site
 * served on 127.0.0.1 stores the fingerprint version on site_technologies and site_month_technologies
 * and a sample of the front page; GraphQL shows the version beside the evidence of a live analysis
 * and on the stored technologies; PAGE_SAMPLES_MAX bounds the samples.
 */
describe('fingerprint provenance and page samples', () => {
  let service: TestService;
  let sites: SampleSites;
  let apiKey: string;

  beforeAll(async () => {
    sites = await startSampleSites([WORDPRESS_PAGE, WORDPRESS_PAGE, WORDPRESS_PAGE, ACME_PAGE]);
    service = await startTestService({ ...FAST_SETTINGS, PAGE_SAMPLES_MAX: '3' });
    ({ apiKey } = await service.createAccount({ plan: 'large', credits: 1000 }));
  });
  afterAll(async () => {
    await service?.stop();
    await sites?.close();
  });

  const services = () => service.running.services;
  const version = () => services().engine.version;
  const samples = async () =>
    (
      await services().db.query<{ site_id: number; url: string; data: Buffer }[]>(
        'SELECT site_id, url, data FROM page_samples ORDER BY site_id',
      )
    ).map((row) => ({
      url: row.url,
      input: JSON.parse(gunzipSync(Buffer.from(row.data)).toString('utf8')) as { html: string; url: string },
    }));

  it('a live analysis shows the fingerprint version beside the evidence (GraphQL)', async () => {
    const res = await service.graphql(
      apiKey,
      `query ($url: String!) { analyze(url: $url) {
         state technologies { slug fingerprintsVersion evidence { kind pattern matched } } } }`,
      { url: sites.urls[0] },
    );
    expect(res.body.errors).toBeUndefined();
    const { technologies } = res.body.data.analyze;
    const wordpress = technologies.find((t: { slug: string }) => t.slug === 'wordpress');
    expect(wordpress.evidence.length).toBeGreaterThan(0);
    for (const t of technologies) expect(t.fingerprintsVersion).toBe(version());
  });

  it('the analysis stored the version on both tables, in its record, and a sample of the front page', async () => {
    const current = await services().db.query<{ slug: string; fingerprints_version: string }[]>(
      'SELECT slug, fingerprints_version FROM site_technologies',
    );
    expect(current.map((r) => r.slug)).toContain('wordpress');
    for (const row of current) expect(row.fingerprints_version).toBe(version());
    const months = await services().db.query<
      { slug: string; fingerprints_version: string; fingerprints_versions: string }[]
    >('SELECT slug, fingerprints_version, fingerprints_versions FROM site_month_technologies');
    expect(months.map((r) => r.slug)).toContain('wordpress');
    for (const row of months) {
      expect(row.fingerprints_version).toBe(version());
      expect(JSON.parse(row.fingerprints_versions)).toEqual([version()]);
    }
    const [sample] = await samples();
    expect(sample.url).toBe(sites.urls[0]);
    expect(sample.input.html).toBe(WORDPRESS_PAGE);
  });

  it('the stored technologies show the version (GraphQL lookupV2, current and monthly)', async () => {
    const res = await service.graphql(
      apiKey,
      `query ($urls: [String!]!) {
         current: lookupV2(urls: $urls) { state technologies { slug fingerprintsVersion } }
         monthly: lookupV2(urls: $urls, squash: false) { months { technologies { slug fingerprintsVersion } } } }`,
      { urls: [sites.urls[0]] },
    );
    expect(res.body.errors).toBeUndefined();
    const [current] = res.body.data.current;
    expect(current.state).toBe('FOUND');
    expect(current.technologies).toContainEqual({ slug: 'wordpress', fingerprintsVersion: version() });
    const [monthly] = res.body.data.monthly;
    expect(monthly.months[0].technologies).toContainEqual({
      slug: 'wordpress',
      fingerprintsVersion: version(),
    });
  });

  it('samples at most PAGE_SAMPLES_MAX sites; once full only sampled sites are refreshed', async () => {
    for (const url of sites.urls.slice(1)) {
      const analysis = await services().analyzer.analyzePage(url);
      expect(analysis.ok).toBe(true);
    }
    expect((await samples()).map((s) => s.url)).toEqual(sites.urls.slice(0, 3));
    sites.serve(0, WORDPRESS_PAGE.replace('Hello', 'Hello again'));
    expect((await services().analyzer.analyzePage(sites.urls[0])).ok).toBe(true);
    const after = await samples();
    expect(after.map((s) => s.url)).toEqual(sites.urls.slice(0, 3));
    expect(after[0].input.html).toContain('Hello again');
  });

  it('a sample goes with its site', async () => {
    const [site] = await services().db.query<{ id: number }[]>('SELECT id FROM sites WHERE hostname = ?', [
      new URL(sites.urls[1]).host,
    ]);
    await services().db.query('DELETE FROM page_validators WHERE site_id = ?', [site.id]);
    for (const table of ['site_technologies', 'site_month_technologies', 'site_months', 'site_languages'])
      await services().db.query(`DELETE FROM ${table} WHERE site_id = ?`, [site.id]);
    await services().db.query('DELETE FROM sites WHERE id = ?', [site.id]);
    expect((await samples()).map((s) => s.url)).toEqual([sites.urls[0], sites.urls[2]]);
  });
});
