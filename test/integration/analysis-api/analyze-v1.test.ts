import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startTestService, TestService } from '../../helpers/test-service';
import { AnalysisKit, creditHeaders, q, startAnalysisKit } from './analysis-test-kit';

/** A port on 127.0.0.1 that nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('GET /analyze/v1/', () => {
  let kit: AnalysisKit;

  beforeAll(async () => {
    kit = await startAnalysisKit();
  });
  afterAll(() => kit.close());

  /** One account per request: the analyze family allows 1 request/s on the small plan. */
  const account = (credits = 10) => kit.service.createAccount({ plan: 'small', credits });
  const analyze = (target: string, key: string) => kit.get(`/analyze/v1/?${q({ url: target })}`, key);

  it('answers {status: "success", applications} in the application-object form, charged one credit', async () => {
    const { accountId, apiKey } = await account(10);
    const res = await analyze(kit.sites.url('/'), apiKey);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.errors).toBeUndefined();
    const byName = new Map(res.body.applications.map((a: { name: string }) => [a.name, a]));
    expect(byName.get('WordPress')).toEqual({
      name: 'WordPress',
      confidence: '100',
      version: '6.4.2',
      icon: expect.stringMatching(/\.(svg|png)$/),
      website: expect.stringMatching(/^https?:\/\/.*wordpress/),
      categories: expect.arrayContaining([{ 1: 'CMS' }]),
    });
    for (const app of res.body.applications) {
      expect(app.confidence).toMatch(/^\d{1,3}$/);
      expect(typeof app.version).toBe('string');
      for (const category of app.categories) {
        expect(Object.keys(category)).toHaveLength(1);
        expect(Object.keys(category)[0]).toMatch(/^\d+$/);
      }
    }
    // A technology found without a version has version '' (never null or absent).
    expect(res.body.applications.some((a: { version: string }) => a.version === '')).toBe(true);
    expect(creditHeaders(res)).toEqual({ spent: 1, remaining: 9 });
    expect(await kit.balance(accountId)).toBe(9);
  });

  const failures: [string, () => Promise<string> | string, string][] = [
    ['the 500', () => kit.sites.url('/error'), 'RESPONSE_NOT_OK'],
    ['the timeout', () => kit.sites.url('/slow'), 'NO_RESPONSE'],
    ['a closed port', async () => `http://127.0.0.1:${await closedPort()}/`, 'NO_RESPONSE'],
    ['the non-HTML response', () => kit.sites.url('/api/data.json'), 'NO_HTML_DOCUMENT'],
    ['the redirect loop', () => kit.sites.url('/loop/a'), 'RESPONSE_NOT_OK'],
  ];

  it.each(failures)(
    'answers status "error" for %s (%s), counted toward the quota but not charged',
    async (_, target, type) => {
      const { accountId, apiKey } = await account(10);
      const before = await kit.quotaRemaining(apiKey);
      const res = await kit.getPatiently(`/analyze/v1/?${q({ url: await target() })}`, apiKey);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'error',
        errors: [{ type, message: expect.any(String) }],
        applications: [],
      });
      expect(res.body.errors[0].message.length).toBeGreaterThan(0);
      expect(creditHeaders(res)).toEqual({ spent: 0, remaining: 10 });
      expect(await kit.balance(accountId)).toBe(10);
      // The usage request before and the one after count too: the analysis is the one in between.
      expect(await kit.quotaRemaining(apiKey)).toBe(before - 2);
    },
  );

  it('follows the redirect chain and analyses the page it ends on', async () => {
    const { apiKey } = await account();
    const res = await analyze(kit.sites.url('/redirect/start'), apiKey);
    expect(res.body.status).toBe('success');
    expect(res.body.applications.map((a: { name: string }) => a.name)).toContain('WordPress');
  });

  it('analyses a non-UTF-8 page', async () => {
    const { apiKey } = await account();
    const res = await analyze(kit.sites.url('/charset/windows-1251'), apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success', applications: expect.any(Array) });
    // The page was decoded from windows-1251: the site index keeps its title readably.
    const site = await kit.service.running.services.siteIndex.findSite(kit.sites.url('/'));
    expect(site).not.toBeNull();
  });

  it('analyses the 20 MB page (read up to the body cap), within the request', async () => {
    const { apiKey } = await account();
    const res = await analyze(kit.sites.url('/big'), apiKey);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
  });

  it('analyses the https site with a self-signed certificate', async () => {
    const { apiKey } = await account();
    const res = await analyze(`${kit.sites.httpsUrl}/`, apiKey);
    expect(res.body.status).toBe('success');
    expect(res.body.applications.map((a: { name: string }) => a.name)).toEqual(
      expect.arrayContaining(['WordPress', 'Nginx']),
    );
  });

  it('answers 400 naming url when it is missing or not http(s)', async () => {
    const { apiKey } = await account();
    const missing = await kit.get('/analyze/v1/', apiKey);
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toMatch(/url/);
    const ftp = await kit.getPatiently(`/analyze/v1/?${q({ url: 'ftp://example.com/' })}`, apiKey);
    expect(ftp.status).toBe(400);
    expect(JSON.stringify(ftp.body)).toMatch(/url/);
  });
});

describe('GET /analyze/v1/ with ALLOW_PRIVATE_TARGETS=false', () => {
  let service: TestService;
  let kit: AnalysisKit;

  beforeAll(async () => {
    kit = await startAnalysisKit();
    service = await startTestService({ ALLOW_PRIVATE_TARGETS: 'false', FETCH_TIMEOUT_MS: '1500' });
  });
  afterAll(async () => {
    await service.stop();
    await kit.close();
  });

  it('refuses a loopback target at once (400, not an error type that blames the target), without fetching it', async () => {
    const { apiKey } = await service.createAccount({ credits: 10 });
    const before = kit.sites.requests.length;
    const res = await service.request(`/analyze/v1/?${q({ url: kit.sites.url('/') })}`, { key: apiKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'TARGET_FORBIDDEN',
      parameter: 'url',
      message: expect.stringMatching(/127\.0\.0\.1 is private.*ALLOW_PRIVATE_TARGETS=true/),
      requestId: expect.any(String),
    });
    expect(await service.request('/v2/credits/balance/', { key: apiKey })).toMatchObject({
      body: { credits: 10 },
    });
    expect(kit.sites.requests.length).toBe(before);
  });
});
