import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { AnalysisKit, q, startAnalysisKit } from '../analysis-api/analysis-test-kit';
import { CREDIT_PRICES } from '../../../src/plans/credit-prices';

/**
 * GET /v2/sbom/ and GraphQL sbom end to end: a real local WordPress site (WordPress 6.4.2 and jQuery
 * 3.7.1) indexed by the real service, its SBOM validated against the CycloneDX 1.6 JSON schema with
 * the CycloneDX library's own validator; versioned CPEs on GraphQL; bad input, unknown sites and the
 * charge — on SQLite and (with TEST_DATABASE_URL) MariaDB.
 */
describe('GET /v2/sbom/', () => {
  let kit: AnalysisKit;
  let key: string;
  let accountId: number;
  let siteUrl: string;

  beforeAll(async () => {
    kit = await startAnalysisKit();
    ({ apiKey: key, accountId } = await kit.service.createAccount({ plan: 'business', credits: 100 }));
    siteUrl = kit.sites.url('/');
    // One page analysed now and stored: the index then knows the site.
    const indexed = await kit.getPatiently(`/v2/lookup/?${q({ urls: siteUrl, recursive: 'false' })}`, key);
    expect(indexed.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
  });

  const sbom = (params: Record<string, string>) => kit.getPatiently(`/v2/sbom/?${q(params)}`, key);

  it.each([
    ['no url', 'url', {}],
    ['a URL that is not http(s)', 'url', { url: 'ftp://example.test/' }],
    ['an unknown parameter', 'format', { url: 'a.test', format: 'xml' }],
  ] as [string, string, Record<string, string>][])(
    'refuses %s with a 400 naming %s, charging nothing',
    async (_name, name, params) => {
      const before = await kit.balance(accountId);
      const res = await sbom(params);
      expect(res.status).toBe(400);
      expect(res.body.parameter).toBe(name);
      expect(await kit.balance(accountId)).toBe(before);
    },
  );

  it('answers 404 for a site the index does not know, without charging', async () => {
    const before = await kit.balance(accountId);
    const res = await sbom({ url: 'never-indexed.test' });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('never-indexed.test');
    expect(await kit.balance(accountId)).toBe(before);
  });

  it('gives a CycloneDX 1.6 document the CycloneDX JSON schema accepts, charged as a stored lookup', async () => {
    const before = await kit.balance(accountId);
    const res = await sbom({ url: siteUrl });
    expect(res.status).toBe(200);
    expect(await kit.balance(accountId)).toBe(before - CREDIT_PRICES.sbom.credits);
    expect(CREDIT_PRICES.sbom.credits).toBe(CREDIT_PRICES.lookupHit.credits);
    const ledger = await kit.ledger(accountId);
    expect(ledger[ledger.length - 1]).toMatchObject({ delta: -1, reason: 'GET /v2/sbom/' });

    const errors = await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(res.text);
    expect(errors).toBeNull();
    const doc = res.body;
    expect(doc).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1 });
    expect(doc.serialNumber).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(doc.metadata.component).toMatchObject({ type: 'application', 'bom-ref': 'site' });
    expect(doc.vulnerabilities).toBeUndefined();

    const jquery = doc.components.find((c: { name: string }) => c.name === 'jQuery');
    expect(jquery).toMatchObject({
      type: 'library',
      version: '3.7.1',
      'bom-ref': 'jquery@3.7.1',
      cpe: 'cpe:2.3:a:jquery:jquery:3.7.1:*:*:*:*:*:*:*',
      purl: 'pkg:npm/jquery@3.7.1',
    });
    expect(jquery.evidence.identity.map((i: { field: string }) => i.field)).toEqual([
      'name',
      'version',
      'cpe',
      'purl',
    ]);
    expect(jquery.evidence.identity[1]).toMatchObject({ concludedValue: '3.7.1' });
    expect(jquery.evidence.occurrences).toEqual([{ location: expect.stringMatching(/^http:\/\/.+\/$/) }]);

    const wordpress = doc.components.find((c: { name: string }) => c.name === 'WordPress');
    expect(wordpress).toMatchObject({
      version: '6.4.2',
      cpe: 'cpe:2.3:a:wordpress:wordpress:6.4.2:*:*:*:*:*:*:*',
    });
    expect(wordpress.purl).toBeUndefined();
  });

  it('gives the same components over GraphQL, and versioned CPEs on looked-up technologies', async () => {
    const res = await kit.service.graphql(
      key,
      `query($url: String!) {
        sbom(url: $url) { hostname components { ref name version cpe versionedCpe purl pages } }
        lookupV2(urls: [$url]) { technologies { name cpe versionedCpes } }
        unknown: sbom(url: "never-indexed.test") { hostname }
      }`,
      { url: siteUrl },
    );
    expect(res.body.errors).toBeUndefined();
    const { sbom: graph, lookupV2, unknown } = res.body.data;
    expect(unknown).toBeNull();
    expect(graph.components).toContainEqual({
      ref: 'jquery@3.7.1',
      name: 'jQuery',
      version: '3.7.1',
      cpe: 'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:*',
      versionedCpe: 'cpe:2.3:a:jquery:jquery:3.7.1:*:*:*:*:*:*:*',
      purl: 'pkg:npm/jquery@3.7.1',
      pages: [expect.stringMatching(/^http:\/\//)],
    });
    expect(lookupV2[0].technologies).toContainEqual({
      name: 'jQuery',
      cpe: 'cpe:2.3:a:jquery:jquery:*:*:*:*:*:*:*:*',
      versionedCpes: ['cpe:2.3:a:jquery:jquery:3.7.1:*:*:*:*:*:*:*'],
    });
  });
});
