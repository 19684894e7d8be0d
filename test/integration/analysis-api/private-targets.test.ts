import { DnsTestServer } from '../../helpers/dns-test-server';
import { AnalysisKit, q, startAnalysisKit } from './analysis-test-kit';

/**
 * With ALLOW_PRIVATE_TARGETS off, every endpoint that would fetch a private or loopback target
 * refuses the request at once: 400 TARGET_FORBIDDEN naming the parameter and the setting that
 * allows it, nothing charged, nothing queued, nothing fetched. (Crawl v1, Lookup v1 and the
 * asynchronous Live/Crawl v2 used to answer 202 and refund later; Analyze v1 answered NO_RESPONSE,
 * as if the target had not answered.)
 */
describe('a private target with ALLOW_PRIVATE_TARGETS=false', () => {
  let kit: AnalysisKit;
  let dns: DnsTestServer;
  /** A public address nothing here contacts: the callback must pass its own check first. */
  const callback = 'http://93.184.216.34/hook';

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    dns.add('intranet.example', 'A', '127.0.0.1');
    kit = await startAnalysisKit({ ALLOW_PRIVATE_TARGETS: 'false', DNS_SERVERS: dns.address });
  });
  afterAll(async () => {
    await kit.close();
    await dns.close();
  });

  const jobCount = async (): Promise<number> => {
    const [{ n }] = await kit.service.running.services.db.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM jobs',
    );
    return Number(n);
  };

  /** Each request on an account of its own: the families allow one request a second on some plans. */
  async function expectRefusedAtOnce(path: (target: string) => string, parameter: string): Promise<void> {
    const target = kit.sites.url('/');
    const named = target.replace('127.0.0.1', 'intranet.example');
    for (const url of [target, named]) {
      const { accountId, apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
      const ledgerBefore = await kit.ledger(accountId);
      const [jobsBefore, fetchedBefore] = [await jobCount(), kit.sites.requests.length];
      const res = await kit.get(path(url), apiKey);
      expect({ path: path(url), status: res.status, body: res.body }).toEqual({
        path: path(url),
        status: 400,
        body: {
          code: 'TARGET_FORBIDDEN',
          parameter,
          message: expect.stringMatching(
            /(127\.0\.0\.1|intranet\.example resolves to 127\.0\.0\.1).*private.*ALLOW_PRIVATE_TARGETS=true/,
          ),
          requestId: expect.any(String),
        },
      });
      expect(await kit.balance(accountId)).toBe(100);
      expect(await kit.ledger(accountId)).toEqual(ledgerBefore);
      expect(await jobCount()).toBe(jobsBefore);
      expect(kit.sites.requests.length).toBe(fetchedBefore);
    }
  }

  it('Crawl v1', () =>
    expectRefusedAtOnce((url) => `/crawl/v1/?${q({ url, callback_url: callback })}`, 'url'));

  it('Lookup v1 that would index the site', () =>
    expectRefusedAtOnce((url) => `/lookup/v1/?${q({ url, callback_url: callback })}`, 'url'));

  it('Analyze v1', () => expectRefusedAtOnce((url) => `/analyze/v1/?${q({ url })}`, 'url'));

  it('Live v2 and Crawl v2, synchronous and asynchronous', async () => {
    await expectRefusedAtOnce((urls) => `/live/v2/?${q({ urls, recursive: 'false' })}`, 'urls');
    await expectRefusedAtOnce(
      (urls) => `/crawl/v2/?${q({ urls: `http://93.184.216.34/,${urls}`, callback_url: callback })}`,
      'urls',
    );
  });

  it('Lookup v2 that would analyse or crawl the site', async () => {
    await expectRefusedAtOnce((urls) => `/v2/lookup/?${q({ urls, recursive: 'false' })}`, 'urls');
    await expectRefusedAtOnce((urls) => `/v2/lookup/?${q({ urls, callback_url: callback })}`, 'urls');
  });

  it('leaves a Lookup v1 that only reads the index as it was: 404 for a site not indexed', async () => {
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
    const res = await kit.get(`/lookup/v1/?${q({ url: kit.sites.url('/') })}`, apiKey);
    expect(res.status).toBe(404);
  });

  it('refuses the GraphQL forms the same way', async () => {
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
    const res = await kit.service.graphql(
      apiKey,
      'mutation($url: String!, $cb: String!) { crawlV1(url: $url, callbackUrl: $cb) }',
      { url: kit.sites.url('/'), cb: callback },
    );
    expect(res.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/ALLOW_PRIVATE_TARGETS/),
      extensions: { code: 'TARGET_FORBIDDEN', parameter: 'url' },
    });
  });
});
