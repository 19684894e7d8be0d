import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { freePort } from '../../helpers/test-process';
import { ListsKit, parseCsv, seedSites, startListsKit, unzip } from './lists-kit';

/**
 * A client written for the commercial API's lists calls: base URL ending in `/v2/`, the key in
 * `x-api-key`, JSON bodies with the published field names, errors read from `body.message`, the
 * list's `url` fetched as given. Pointed at this service by changing only its base URL, it runs
 * create → poll → finalize → download → delete, with and without trailing slashes.
 */
class CommercialListsClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    /** Every answer is checked against the service's published OpenAPI document. */
    private readonly contract: OpenApiDocument,
  ) {}

  /** Waits out a 429 as Retry-After says, like a client of a rate-limited API must. */
  private async send(method: string, path: string, body?: unknown): Promise<any> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sendOnce(method, path, body);
      } catch (error) {
        const wait = /^429: /.test((error as Error).message) && attempt < 5;
        if (!wait) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async sendOnce(method: string, path: string, body?: unknown) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': this.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await response.json();
    expectMatchesContract(this.contract, method, new URL(response.url).pathname, response.status, data);
    if (!response.ok) throw new Error(`${response.status}: ${data.message}`);
    return data;
  }

  createList(request: Record<string, unknown>) {
    return this.send('POST', 'lists', request);
  }
  getLists() {
    return this.send('GET', 'lists/');
  }
  getList(id: string, slash = false) {
    return this.send('GET', `lists/${id}${slash ? '/' : ''}`);
  }
  finalizeList(id: string, spendCredits: number, slash = false) {
    return this.send('POST', `lists/${id}${slash ? '/' : ''}`, { spendCredits });
  }
  deleteList(id: string) {
    return this.send('DELETE', `lists/${id}/`);
  }
  async waitUntilReady(id: string) {
    for (;;) {
      const list = await this.getList(id);
      if (list.status !== 'Calculating') return list;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }
}

describe('a client written for the commercial lists API, pointed at this service', () => {
  let kit: ListsKit;
  let client: CommercialListsClient;

  beforeAll(async () => {
    const port = await freePort();
    kit = await startListsKit({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 50 });
    client = new CommercialListsClient(
      `${kit.service.url}/v2/`,
      apiKey,
      await fetchOpenApiDocument(kit.service.url),
    );
    await seedSites(kit.service.running.services.db.manager, [
      {
        hostname: 'shop.example',
        country: 'DE',
        languages: ['de'],
        trafficRank: 3,
        setsMask: 0b1000,
        enrichment: { email: { email: ['info@shop.example'] } },
        techs: [
          { slug: 'shopify', version: '2.0' },
          { slug: 'jquery', version: '3.6.0' },
        ],
      },
      {
        hostname: 'store.example',
        country: 'AT',
        languages: ['de'],
        trafficRank: 9,
        techs: [{ slug: 'shopify' }],
      },
      {
        hostname: 'blog.example',
        country: 'US',
        languages: ['en'],
        trafficRank: 1,
        techs: [{ slug: 'jquery' }],
      },
    ]);
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
  });

  it('create → poll → finalize → download → delete', async () => {
    const created = await client.createList({
      technologies: [{ slug: 'shopify' }, { slug: 'jquery', version: '3', operator: '>=' }],
      countries: ['DE', 'AT'],
      languages: ['de'],
      sets: ['email'],
      format: 'csv',
    });
    expect(created).toEqual({ id: expect.stringMatching(/^lst_/), status: 'Calculating' });

    const ready = await client.waitUntilReady(created.id);
    expect(ready).toMatchObject({
      id: created.id,
      status: 'Ready',
      rows: { shopify: 2, jquery: 1 },
      setRows: { email: 1 },
      totalCredits: 2,
      url: null,
      sampleUrl: expect.stringMatching(
        new RegExp(`^http://127\\.0\\.0\\.1:\\d+/v2/lists/${created.id}/files/sample\\.zip\\?`),
      ),
    });
    expect((await client.getLists()).map((l: { id: string }) => l.id)).toContain(created.id);
    expect((await client.getList(created.id, true)).id).toBe(created.id);

    await expect(client.finalizeList(created.id, 1)).rejects.toThrow(/^400: .*spendCredits/);
    const complete = await client.finalizeList(created.id, ready.totalCredits, true);
    expect(complete).toEqual({
      id: created.id,
      status: 'Complete',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1/),
    });

    const zip = await fetch(complete.url);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const files = await unzip(Buffer.from(await zip.arrayBuffer()));
    const shopify = parseCsv(files.get('shopify.csv')!);
    expect(shopify.map((r) => [r.hostname, r.country, r.email])).toEqual([
      ['shop.example', 'DE', 'info@shop.example'],
      ['store.example', 'AT', ''],
    ]);
    expect(parseCsv(files.get('jquery.csv')!).map((r) => [r.hostname, r.version])).toEqual([
      ['shop.example', '3.6.0'],
    ]);

    expect(await client.deleteList(created.id)).toEqual({});
    await expect(client.getList(created.id)).rejects.toThrow(/^404/);
    expect((await fetch(complete.url)).status).toBe(404);
  });
});
