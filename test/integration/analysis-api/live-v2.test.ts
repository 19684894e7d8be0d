import { AnalysisKit, creditHeaders, q, startAnalysisKit } from './analysis-test-kit';

describe('GET /live/v2/ and GET /crawl/v2/ (one page, and several with a callback)', () => {
  let kit: AnalysisKit;

  beforeAll(async () => {
    kit = await startAnalysisKit();
  });
  afterAll(() => kit.close());

  const account = (credits = 20) => kit.service.createAccount({ plan: 'small', credits });

  it.each(['live', 'crawl'])(
    '/%s/v2/ with recursive=false answers [{url, technologies}] synchronously, with versions',
    async (family) => {
      const { accountId, apiKey } = await account(20);
      const target = kit.sites.url('/about/');
      const res = await kit.get(`/${family}/v2/?${q({ urls: target, recursive: 'false' })}`, apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(1);
      expect(Object.keys(res.body[0]).sort()).toEqual(['technologies', 'url']);
      expect(res.body[0].url).toBe(target);
      const wordpress = res.body[0].technologies.find((t: { slug: string }) => t.slug === 'wordpress');
      expect(wordpress).toMatchObject({
        slug: 'wordpress',
        name: 'WordPress',
        versions: ['6.4.2'],
        categories: expect.arrayContaining([{ id: 1, slug: 'cms', name: 'CMS' }]),
      });
      expect(res.body[0].technologies.find((t: { slug: string }) => t.slug === 'php').versions).toEqual([
        '8.2.12',
      ]);
      expect(creditHeaders(res)).toEqual({ spent: 1, remaining: 19 });
      expect(await kit.balance(accountId)).toBe(19);
    },
  );

  it('adds the meta set (title, description) when sets=meta, decoded from a non-UTF-8 page', async () => {
    const { apiKey } = await account();
    const home = await kit.get(
      `/live/v2/?${q({ urls: kit.sites.url('/'), recursive: 'false', sets: 'meta' })}`,
      apiKey,
    );
    expect(home.status).toBe(200);
    expect(home.body[0].title).toBe('Flavor Shop \u2013 Fresh spices');
    expect(home.body[0].email).toBeUndefined();
    const cyrillic = await kit.get(
      `/live/v2/?${q({ urls: kit.sites.url('/charset/windows-1251'), recursive: 'false', sets: 'meta' })}`,
      apiKey,
    );
    expect(cyrillic.body[0].title).toBe('Привет, мир');
  });

  it('adds the social and email sets, and all of them with sets=all', async () => {
    const { apiKey } = await account();
    const res = await kit.get(
      `/live/v2/?${q({ urls: kit.sites.url('/'), recursive: 'false', sets: 'all' })}`,
      apiKey,
    );
    expect(res.body[0]).toMatchObject({
      title: expect.any(String),
      language: 'en-us',
      email: ['hello@flavorshop.co.uk'],
      twitter: ['flavorshop'],
    });
  });

  it('stays synchronous for one URL with recursive=false even when a callback_url is given', async () => {
    const { apiKey } = await account(5);
    const target = kit.sites.url('/about/');
    const res = await kit.get(
      `/live/v2/?${q({ urls: target, recursive: 'false', callback_url: 'http://127.0.0.1:9/unused' })}`,
      apiKey,
    );
    expect(res.status).toBe(200);
    expect(res.body[0].url).toBe(target);
    expect(res.body[0].technologies.length).toBeGreaterThan(0);
    expect(creditHeaders(res)).toEqual({ spent: 1, remaining: 4 });
  });

  it('answers [{url, errors: [string]}] for a page that cannot be analysed, not charged', async () => {
    const { apiKey } = await account(5);
    const target = kit.sites.url('/error');
    const res = await kit.get(`/live/v2/?${q({ urls: target, recursive: 'false' })}`, apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ url: target, errors: [expect.stringMatching(/500/)] }]);
    expect(creditHeaders(res)).toEqual({ spent: 0, remaining: 5 });
  });

  it('answers 400 naming callback_url when recursive (the default) has no callback_url', async () => {
    const { apiKey } = await account();
    const res = await kit.get(`/live/v2/?${q({ urls: kit.sites.url('/') })}`, apiKey);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/callback_url/);
  });

  it.each(['live', 'crawl'])(
    '/%s/v2/ answers 400 naming urls for several URLs with recursive=false, callback or not, charging nothing',
    async (family) => {
      const urls = [kit.sites.url('/'), kit.sites.url('/about/')].join(',');
      for (const withCallback of [false, true]) {
        // A fresh account each time: the Crawl v2 rate limit must not answer first.
        const { accountId, apiKey } = await account(20);
        const receiver = await kit.receiverFor(accountId);
        const extra: Record<string, string> = withCallback ? { callback_url: receiver.url } : {};
        const res = await kit.get(`/${family}/v2/?${q({ urls, recursive: 'false', ...extra })}`, apiKey);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({ code: 'BAD_REQUEST', parameter: 'urls' });
        expect(await kit.balance(accountId)).toBe(20);
      }
    },
  );

  it('answers 400 naming urls for 11 URLs (and for none)', async () => {
    const { apiKey } = await account();
    const receiver = await kit.receiverFor((await account()).accountId);
    const urls = Array.from({ length: 11 }, (_, i) => kit.sites.url(`/blog/post-${i + 1}/`)).join(',');
    const res = await kit.get(`/live/v2/?${q({ urls, callback_url: receiver.url })}`, apiKey);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/urls/);
    const none = await kit.get(`/live/v2/?${q({ urls: '', callback_url: receiver.url })}`, apiKey);
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toMatch(/urls/);
  });

  it('accepts several URLs with a callback: 202 [{url, crawl: true}], then one signed callback per URL', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const good = kit.sites.url('/about/');
    const bad = kit.sites.url('/error');
    const res = await kit.get(
      `/live/v2/?${q({ urls: `${good},${bad}`, callback_url: receiver.url })}`,
      apiKey,
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual([
      { url: good, crawl: true },
      { url: bad, crawl: true },
    ]);
    expect(creditHeaders(res)).toEqual({ spent: 10, remaining: 10 });

    const callbacks = await receiver.waitFor(2);
    await kit.jobsSettled();
    expect(receiver.received).toHaveLength(2);
    for (const callback of callbacks) {
      expect(callback.method).toBe('POST');
      expect(callback.signatureValid).toBe(true);
      expect(callback.headers['content-type']).toMatch(/application\/json/);
    }
    const bodies = callbacks.map((c) => JSON.parse(c.body));
    const ok = bodies.find((b) => b.url === good);
    const failed = bodies.find((b) => b.url === bad);
    expect(ok.technologies.map((t: { slug: string }) => t.slug)).toContain('wordpress');
    expect(ok.technologies.find((t: { slug: string }) => t.slug === 'wordpress').versions).toEqual(['6.4.2']);
    expect(failed).toEqual({ url: bad, errors: [expect.stringMatching(/500/)] });
    // The URL that failed entirely is refunded: five credits kept, five back.
    expect(await kit.balance(accountId)).toBe(15);
  });
});
