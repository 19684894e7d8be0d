import { LookupV1CallbackShape } from '../../../src/services/analysis/analysis.contract';
import { AnalysisKit, creditHeaders, q, startAnalysisKit } from './analysis-test-kit';
import { startTwoPageSite, TwoPageSite } from './two-page-site';

type JsonObject = Record<string, unknown>;

/** MM-YYYY of now (UTC), as Lookup v1 names months. */
function thisMonth(): string {
  const now = new Date();
  return `${String(now.getUTCMonth() + 1).padStart(2, '0')}-${now.getUTCFullYear()}`;
}

describe('GET /lookup/v1/', () => {
  let kit: AnalysisKit;
  let shop: TwoPageSite;

  beforeAll(async () => {
    kit = await startAnalysisKit();
    shop = await startTwoPageSite();
  });
  afterAll(async () => {
    await shop.close();
    await kit.close();
  });

  /** Medium plan: 10 lookups/s, so a test may look up twice in a row. */
  const account = (credits = 20) => kit.service.createAccount({ plan: 'medium', credits });

  it('answers 404 for a site the index does not have and no callback_url, counted but not charged', async () => {
    const { accountId, apiKey } = await account(20);
    const before = await kit.quotaRemaining(apiKey);
    const res = await kit.get(`/lookup/v1/?${q({ url: 'http://never-seen.example/' })}`, apiKey);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).toMatch(/callback_url/);
    expect(await kit.quotaRemaining(apiKey)).toBe(before - 2);
    expect(await kit.balance(accountId)).toBe(20);
  });

  it('indexes an unseen site with a callback (202, then {url, applications}), and answers 200 from the index after', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const site = kit.sites.url('/');
    const accepted = await kit.get(`/lookup/v1/?${q({ url: site, callback_url: receiver.url })}`, apiKey);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ status: 'received' });
    expect(creditHeaders(accepted)).toEqual({ spent: 5, remaining: 15 });

    const [callback] = await receiver.waitFor(1, 30_000);
    expect(callback.signatureValid).toBe(true);
    const body = JSON.parse(callback.body);
    expect(Object.keys(body).sort()).toEqual(['applications', 'url']);
    expect(LookupV1CallbackShape.strict().safeParse(body).error).toBeUndefined();
    expect(body.url).toBe(site);
    expect(body.applications).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'WordPress', version: '6.4.2', confidence: '100' }),
      ]),
    );
    await kit.jobsSettled();

    const found = await kit.get(`/lookup/v1/?${q({ url: site })}`, apiKey);
    expect(found.status).toBe(200);
    expect(creditHeaders(found)).toEqual({ spent: 1, remaining: 14 });
    expect(found.body).toHaveLength(1);
    const [month] = found.body;
    expect(Object.keys(month).sort()).toEqual(['applications', 'languages', 'monthYear']);
    expect(month.monthYear).toBe(thisMonth());
    expect(month.languages).toContain('en-us');
    const wordpress = month.applications.find((a: { name: string }) => a.name === 'WordPress');
    expect(wordpress).toEqual({
      name: 'WordPress',
      categories: ['CMS', 'Blogs'],
      versions: ['6.4.2'],
      hits: expect.any(Number),
    });
    // hits: the page views of the site the service recorded this month, WordPress being on every one.
    const [row] = await kit.service.running.services.db.query<{ hits: number }[]>(
      'SELECT m.hits FROM site_months m JOIN sites s ON s.id = m.site_id WHERE s.hostname = ?',
      [new URL(site).host],
    );
    expect(wordpress.hits).toBe(Number(row.hits));
    expect(wordpress.hits).toBeGreaterThan(1);
    // The bare host name finds the same site (www. and the scheme do not matter).
    const bare = await kit.get(`/lookup/v1/?${q({ url: new URL(site).host })}`, apiKey);
    expect(bare.status).toBe(200);
    expect(bare.body).toEqual(found.body);
  });

  it('hides low-confidence technologies with denoise=true (the default) and shows them with denoise=false', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    expect(
      (await kit.get(`/lookup/v1/?${q({ url: shop.url, callback_url: receiver.url })}`, apiKey)).status,
    ).toBe(202);
    await receiver.waitFor(1, 30_000);
    await kit.jobsSettled();

    const names = (res: { body: { applications: { name: string }[] }[] }) =>
      res.body.flatMap((m) => m.applications.map((a) => a.name));
    const denoised = await kit.get(`/lookup/v1/?${q({ url: shop.url })}`, apiKey);
    const explicit = await kit.get(`/lookup/v1/?${q({ url: shop.url, denoise: 'true' })}`, apiKey);
    const noisy = await kit.get(`/lookup/v1/?${q({ url: shop.url, denoise: 'false' })}`, apiKey);
    expect(noisy.status).toBe(200);
    expect(names(noisy)).toEqual(expect.arrayContaining(['WordPress', 'Stripe', 'Service Provider Pro']));
    expect(names(denoised)).toEqual(expect.arrayContaining(['WordPress', 'Stripe']));
    expect(names(denoised)).not.toContain('Service Provider Pro');
    expect(explicit.body).toEqual(denoised.body);
    expect(names(noisy).length).toBeGreaterThan(names(denoised).length);
  });

  it('answers with the GraphQL months of the documented fields, rendered once per stored version and never staler', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const asked = await kit.get(`/lookup/v1/?${q({ url: shop.url, callback_url: receiver.url })}`, apiKey);
    if (asked.status === 202) {
      await receiver.waitFor(1, 30_000);
      await kit.jobsSettled();
    }
    // The GraphQL selection of the fields the served OpenAPI document gives the 200 answer: a field
    // added to the type reaches the document and this selection, and must reach the REST answer too.
    const fields = (schema: JsonObject): string =>
      Object.entries(schema.properties as Record<string, JsonObject>)
        .map(([name, field]) => {
          const items = field.items as JsonObject | undefined;
          return items?.properties ? `${name} { ${fields(items)} }` : name;
        })
        .join(' ');
    const documented = (kit.contract as unknown as JsonObject).paths as Record<string, JsonObject>;
    const ok = ((documented['/lookup/v1/'].get as JsonObject).responses as Record<string, JsonObject>)['200'];
    const months = ((ok.content as JsonObject)['application/json'] as JsonObject).schema as JsonObject;
    const selection = fields(months.items as JsonObject);
    expect(selection).toBe('monthYear languages applications { name categories versions hits }');
    const viaGraphql = async (denoise: boolean) => {
      const res = await kit.service.graphql(
        apiKey,
        `query ($url: String!, $denoise: Boolean!) { lookup(url: $url, denoise: $denoise) { months { ${selection} } } }`,
        { url: shop.url, denoise },
      );
      expect(res.body.errors).toBeUndefined();
      return res.body.data.lookup.months;
    };
    for (const denoise of [true, false]) {
      const rest = await kit.getPatiently(
        `/lookup/v1/?${q({ url: shop.url, denoise: String(denoise) })}`,
        apiKey,
      );
      expect(rest.status).toBe(200);
      expect(rest.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(rest.body).toEqual(await viaGraphql(denoise));
      // Asked again, the same stored version: the same text.
      const again = await kit.getPatiently(
        `/lookup/v1/?${q({ url: shop.url, denoise: String(denoise) })}`,
        apiKey,
      );
      expect(again.text).toBe(rest.text);
    }

    // A new analysis of the site is in the very next answer: more page views, so more hits.
    const hitsOf = (body: { applications: { name: string; hits: number }[] }[]) =>
      body.at(-1)!.applications.find((a) => a.name === 'WordPress')!.hits;
    const before = await kit.getPatiently(`/lookup/v1/?${q({ url: shop.url })}`, apiKey);
    expect((await kit.getPatiently(`/analyze/v1/?${q({ url: shop.url })}`, apiKey)).body.status).toBe(
      'success',
    );
    const after = await kit.getPatiently(`/lookup/v1/?${q({ url: shop.url })}`, apiKey);
    expect(hitsOf(after.body)).toBe(hitsOf(before.body) + 1);
    expect(after.body).toEqual(await viaGraphql(true));
  });

  it('answers 400 naming callback_url for a callback URL that is not http(s)', async () => {
    const { apiKey } = await account(20);
    const res = await kit.get(
      `/lookup/v1/?${q({ url: 'http://unseen.example/', callback_url: 'ftp://x/' })}`,
      apiKey,
    );
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/callback_url/);
  });
});
