import { CallbackReceiver, startCallbackReceiver } from '../../helpers/callback-receiver';
import { eventually } from '../../helpers/eventually';
import { ListsKit, seedSites, startListsKit, unzip, type SeedSite } from './lists-kit';

/**
 * List and dataset download links are absolute, as the commercial API returns them: under
 * PUBLIC_BASE_URL when set, else the origin the request reached the service at (X-Forwarded-Proto
 * and X-Forwarded-Host only behind a trusted proxy, TRUST_PROXY=true); a callback, made in the
 * worker, uses the origin of the request that created the list or quoted the order. Over REST,
 * GraphQL and the callbacks, and each link downloads its file as it is, without resolving it.
 */
const SITES: SeedSite[] = [
  { hostname: 'alpha.com', languages: ['en'], trafficRank: 10, techs: [{ slug: 'wordpress' }] },
  { hostname: 'beta.de', languages: ['de'], trafficRank: 20, techs: [{ slug: 'wordpress' }] },
];

const FORWARDED = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com:8443' };

/** A link whose origin is `origin` and whose path is the list's file, signed. */
const linkUnder = (origin: string, listId: string, file: string) =>
  new RegExp(
    `^${origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/v2/lists/${listId}/files/${file}\\?expires=\\d+&signature=[0-9a-f]{64}$`,
  );

/** Fetches an absolute link as a client would (no base URL): the ZIP once it is written (503 until then). */
async function downloadAsIs(link: string): Promise<Map<string, string>> {
  const res = await eventually(
    async () => {
      const answer = await fetch(link);
      if (answer.status !== 503) return answer;
      await answer.arrayBuffer();
      return undefined;
    },
    { describe: `${link} to be written`, intervalMs: 100 },
  );
  expect(res.status).toBe(200);
  return unzip(Buffer.from(await res.arrayBuffer()));
}

/** Starts a service over the seeded sites with a callback receiver, and a business key. */
async function setUp(settings: Record<string, string>) {
  const kit = await startListsKit(settings);
  await seedSites(kit.service.running.services.db.manager, SITES);
  const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
  return { kit, key: apiKey };
}

/** POST /v2/lists with a callback, with the given request headers; the list once Ready and its callback. */
async function readyList(kit: ListsKit, key: string, receiver: CallbackReceiver, headers = {}) {
  const path = `/list-${Math.random().toString(36).slice(2)}`;
  const create = () =>
    kit.service.request('/v2/lists', {
      key,
      method: 'POST',
      headers,
      body: { technologies: [{ slug: 'wordpress' }], callbackUrl: receiver.urlFor(path) },
    });
  let created = await create();
  // A per-second limit: the rate-limit clock moves on instead of the test waiting.
  if (created.status === 429) {
    kit.service.clock.advance(Number(created.headers.get('retry-after') ?? 1) * 1000);
    created = await create();
  }
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  const callback = await eventually(() => receiver.received.find((r) => r.path === path), {
    describe: `the list.ready callback of ${id}`,
  });
  return { id, callback: JSON.parse(callback.body) as { sampleUrl: string } };
}

describe('download links without PUBLIC_BASE_URL or a trusted proxy', () => {
  let kit: ListsKit;
  let key: string;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await startCallbackReceiver();
    ({ kit, key } = await setUp({}));
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
  });

  it("are under the service's own origin over REST, GraphQL and the callback, and download as they are", async () => {
    const own = kit.service.url;
    const { id, callback } = await readyList(kit, key, receiver);
    expect(callback.sampleUrl).toMatch(linkUnder(own, id, 'sample.zip'));

    const ready = await kit.service.request(`/v2/lists/${id}`, { key });
    expect(ready.body).toMatchObject({ status: 'Ready', url: null });
    expect(ready.body.sampleUrl).toMatch(linkUnder(own, id, 'sample.zip'));
    expect([...(await downloadAsIs(ready.body.sampleUrl)).keys()]).toEqual(['wordpress.csv']);

    const complete = await kit.service.request(`/v2/lists/${id}`, {
      key,
      method: 'POST',
      body: { spendCredits: ready.body.totalCredits },
    });
    expect(complete.status).toBe(200);
    expect(complete.body.url).toMatch(linkUnder(own, id, 'full.zip'));
    const rows = (await downloadAsIs(complete.body.url)).get('wordpress.csv')!;
    expect(rows).toContain('alpha.com');

    const gql = await kit.service.graphql(key, 'query($id: String!) { list(id: $id) { url sampleUrl } }', {
      id,
    });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.list.url).toMatch(linkUnder(own, id, 'full.zip'));
    expect(gql.body.data.list.sampleUrl).toMatch(linkUnder(own, id, 'sample.zip'));
  });

  it('ignore X-Forwarded-Proto and X-Forwarded-Host (the proxy is not trusted)', async () => {
    const { id, callback } = await readyList(kit, key, receiver, FORWARDED);
    expect(callback.sampleUrl).toMatch(linkUnder(kit.service.url, id, 'sample.zip'));
    const got = await kit.service.request(`/v2/lists/${id}`, { key, headers: FORWARDED });
    expect(got.body.sampleUrl).toMatch(linkUnder(kit.service.url, id, 'sample.zip'));
  });

  it("put a dataset's link under the quoting request's origin in the callback, and the asking one's in GraphQL", async () => {
    const path = '/dataset';
    const quoted = await kit.call('/dataset/v1/', key, {
      method: 'POST',
      body: { technologies: ['WordPress'], callback_url: receiver.urlFor(path) },
    });
    expect(quoted.status).toBe(202);
    const { orderRef } = quoted.body;
    await eventually(() => receiver.received.some((r) => r.path === path), { describe: 'the quote' });
    expect((await kit.call(`/dataset/v1/${orderRef}`, key, { method: 'POST' })).status).toBe(202);
    const complete = await eventually(
      () => {
        const got = receiver.received.filter((r) => r.path === path);
        return got.length >= 2 && (JSON.parse(got[1].body) as { dataset: { url: string } });
      },
      { describe: 'the completed order' },
    );
    expect(complete.dataset.url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/v2\/lists\/lst_[0-9a-f]{24}\/files\/full\.zip\?/,
    );
    expect(complete.dataset.url.startsWith(`${kit.service.url}/`)).toBe(true);
    expect((await downloadAsIs(complete.dataset.url)).has('wordpress.csv')).toBe(true);

    const gql = await kit.service.graphql(
      key,
      'query($orderRef: String!) { datasetOrder(orderRef: $orderRef) { dataset { url } } }',
      { orderRef },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.datasetOrder.dataset.url.startsWith(`${kit.service.url}/v2/lists/`)).toBe(true);
  });
});

describe('download links behind a trusted proxy (TRUST_PROXY=true)', () => {
  let kit: ListsKit;
  let key: string;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await startCallbackReceiver();
    ({ kit, key } = await setUp({ TRUST_PROXY: 'true' }));
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
  });

  it('are under X-Forwarded-Proto and X-Forwarded-Host, in the answer and the callback', async () => {
    const { id, callback } = await readyList(kit, key, receiver, FORWARDED);
    expect(callback.sampleUrl).toMatch(linkUnder('https://api.example.com:8443', id, 'sample.zip'));
    const got = await kit.service.request(`/v2/lists/${id}`, { key, headers: FORWARDED });
    expect(got.body.sampleUrl).toMatch(linkUnder('https://api.example.com:8443', id, 'sample.zip'));
    // The same link, asked for without the proxy's headers, is under the service's own origin; the path and query are one file.
    const direct = await kit.service.request(`/v2/lists/${id}`, { key });
    expect(direct.body.sampleUrl).toMatch(linkUnder(kit.service.url, id, 'sample.zip'));
    expect((await downloadAsIs(direct.body.sampleUrl)).has('wordpress.csv')).toBe(true);
  });

  it('ignore a forwarded host that is not a plain host name, and a scheme that is neither http nor https', async () => {
    const { id } = await readyList(kit, key, receiver);
    const got = await kit.service.request(`/v2/lists/${id}`, {
      key,
      headers: { 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example/path?x=' },
    });
    expect(got.body.sampleUrl).toMatch(linkUnder(kit.service.url, id, 'sample.zip'));
  });
});

describe('download links with PUBLIC_BASE_URL', () => {
  let kit: ListsKit;
  let key: string;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    receiver = await startCallbackReceiver();
    ({ kit, key } = await setUp({ PUBLIC_BASE_URL: 'https://tis.example.com/api/', TRUST_PROXY: 'true' }));
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
    await receiver?.close();
  });

  it("are under it, whatever the request's origin or forwarded headers, in the answer and the callback", async () => {
    const base = 'https://tis.example.com/api';
    const { id, callback } = await readyList(kit, key, receiver, FORWARDED);
    expect(callback.sampleUrl).toMatch(linkUnder(base, id, 'sample.zip'));
    for (const headers of [{}, FORWARDED]) {
      const got = await kit.service.request(`/v2/lists/${id}`, { key, headers });
      expect(got.body.sampleUrl).toMatch(linkUnder(base, id, 'sample.zip'));
    }
    // The link's path and query, sent to the service itself, download the file.
    const link = new URL((await kit.service.request(`/v2/lists/${id}`, { key })).body.sampleUrl);
    const local = `${kit.service.url}${link.pathname.replace(/^\/api/, '')}${link.search}`;
    expect((await downloadAsIs(local)).has('wordpress.csv')).toBe(true);
  });
});
