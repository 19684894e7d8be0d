import { CommercialClient } from '../../helpers/commercial-client';
import { fetchOpenApiDocument } from '../../helpers/openapi-contract';
import { freePort } from '../../helpers/test-process';
import { ListsKit, parseCsv, seedSites, startListsKit, unzip } from './lists-kit';

/**
 * The commercial API's lists calls through a client written for it (test/helpers/commercial-client):
 * create → poll → finalize → download → delete, with and without trailing slashes, every answer
 * checked against the published OpenAPI document.
 */
describe('a client written for the commercial lists API, pointed at this service', () => {
  let kit: ListsKit;
  let client: CommercialClient;

  beforeAll(async () => {
    const port = await freePort();
    kit = await startListsKit({ PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 50 });
    client = new CommercialClient(`${kit.service.url}/v2/`, apiKey, {
      contract: await fetchOpenApiDocument(kit.service.url),
      // It waits out a 429 as Retry-After says; here the service's rate-limit clock moves instead.
      waitOut: (seconds) => kit.service.clock.advance(seconds * 1000),
    });
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
