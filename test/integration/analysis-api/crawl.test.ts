import { CrawlV1CallbackShape } from '../../../src/services/analysis/analysis.contract';
import { AnalysisKit, creditHeaders, q, startAnalysisKit } from './analysis-test-kit';
import { startTwoPageSite, TwoPageSite } from './two-page-site';

describe('crawls: GET /crawl/v2/ recursive and GET /crawl/v1/', () => {
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

  const account = (credits = 20) => kit.service.createAccount({ plan: 'small', credits });
  const db = () => kit.service.running.services.db;
  const hostOf = (url: string) => new URL(url).host;

  it('crawls the multi-page site up to 25 pages, then calls back once per URL (signed)', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const start = kit.sites.url('/');
    const before = kit.sites.requests.length;
    const res = await kit.get(
      `/crawl/v2/?${q({ urls: `${start},${shop.url}/`, callback_url: receiver.url })}`,
      apiKey,
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual([
      { url: start, crawl: true },
      { url: `${shop.url}/`, crawl: true },
    ]);
    expect(creditHeaders(res)).toEqual({ spent: 10, remaining: 10 });

    const callbacks = await receiver.waitFor(2, 30_000);
    await kit.jobsSettled();
    expect(receiver.received).toHaveLength(2);
    expect(callbacks.every((c) => c.signatureValid === true)).toBe(true);
    const body = callbacks.map((c) => JSON.parse(c.body)).find((b) => b.url === start);
    expect(body.technologies.map((t: { slug: string }) => t.slug)).toEqual(
      expect.arrayContaining(['wordpress', 'php', 'nginx', 'youtube']),
    );

    // More than one page was fetched, never more than 25, never robots.txt's /private/.
    const pages = kit.sites.requests
      .slice(before)
      .map((r) => r.path)
      .filter((p) => p === '/' || /^\/(about|blog|contact|shop|private)\//.test(p));
    expect(new Set(pages).size).toBeGreaterThan(1);
    expect(new Set(pages).size).toBeLessThanOrEqual(25);
    expect(pages.some((p) => p.startsWith('/private/'))).toBe(false);

    // The index recorded one page view per page crawled: the month's hits, and the site's.
    const [site] = await db().query<{ id: number; hits: number }[]>(
      'SELECT id, hits FROM sites WHERE hostname = ?',
      [hostOf(start)],
    );
    expect(Number(site.hits)).toBe(new Set(pages).size);
    const [month] = await db().query<{ hits: number }[]>('SELECT hits FROM site_months WHERE site_id = ?', [
      site.id,
    ]);
    expect(Number(month.hits)).toBe(new Set(pages).size);
  });

  it('marks technologies seen on the root path, and not those seen only deeper', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const res = await kit.get(
      `/crawl/v2/?${q({ urls: `${shop.url}/`, callback_url: receiver.url })}`,
      apiKey,
    );
    expect(res.status).toBe(202);
    const [callback] = await receiver.waitFor(1, 30_000);
    const slugs = JSON.parse(callback.body).technologies.map((t: { slug: string }) => t.slug);
    expect(slugs).toEqual(expect.arrayContaining(['wordpress', 'stripe']));
    const rows = await db().query<{ slug: string; root_path: number | boolean }[]>(
      'SELECT t.slug, t.root_path FROM site_technologies t JOIN sites s ON s.id = t.site_id WHERE s.hostname = ?',
      [hostOf(shop.url)],
    );
    const rootPath = Object.fromEntries(rows.map((r) => [r.slug, Boolean(Number(r.root_path))]));
    expect(rootPath.wordpress).toBe(true);
    expect(rootPath.stripe).toBe(false);
  });

  it('GET /crawl/v1/ answers 202 {status: "received"}, then calls back {url, applications, status: "success"}', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const start = kit.sites.url('/about/');
    const res = await kit.get(`/crawl/v1/?${q({ url: start, callback_url: receiver.url })}`, apiKey);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'received' });
    expect(creditHeaders(res)).toEqual({ spent: 5, remaining: 15 });

    const [callback] = await receiver.waitFor(1, 30_000);
    expect(callback.signatureValid).toBe(true);
    const body = JSON.parse(callback.body);
    expect(Object.keys(body).sort()).toEqual(['applications', 'status', 'url']);
    // The published shape, strictly: the same declaration the OpenAPI document is derived from.
    expect(CrawlV1CallbackShape.strict().safeParse(body).error).toBeUndefined();
    expect(body).toMatchObject({ url: start, status: 'success' });
    expect(body.applications).toEqual(
      expect.arrayContaining([
        {
          name: 'WordPress',
          confidence: '100',
          version: '6.4.2',
          icon: expect.any(String),
          website: expect.any(String),
          categories: expect.arrayContaining([{ 1: 'CMS' }]),
        },
      ]),
    );
    await kit.jobsSettled();
    expect(await kit.balance(accountId)).toBe(15);
  });

  it('GET /crawl/v1/ of a dead site calls back status "error" with errors and refunds the credits', async () => {
    const { accountId, apiKey } = await account(20);
    const receiver = await kit.receiverFor(accountId);
    const dead = kit.sites.url('/error');
    const res = await kit.get(`/crawl/v1/?${q({ url: dead, callback_url: receiver.url })}`, apiKey);
    expect(res.status).toBe(202);
    expect(creditHeaders(res)).toEqual({ spent: 5, remaining: 15 });

    const [callback] = await receiver.waitFor(1, 30_000);
    expect(callback.signatureValid).toBe(true);
    expect(JSON.parse(callback.body)).toEqual({
      url: dead,
      applications: [],
      status: 'error',
      errors: [{ type: 'RESPONSE_NOT_OK', message: expect.any(String) }],
    });
    await kit.jobsSettled();
    expect(await kit.balance(accountId)).toBe(20);
    const ledger = await kit.ledger(accountId);
    expect(ledger.map((row) => [row.kind, row.delta])).toEqual([
      ['grant', 20],
      ['charge', -5],
      ['refund', 5],
    ]);
    expect(ledger[2].balance_after).toBe(20);
  });

  it('GET /crawl/v1/ needs callback_url (400 naming it)', async () => {
    const { apiKey } = await account();
    const res = await kit.get(`/crawl/v1/?${q({ url: kit.sites.url('/') })}`, apiKey);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/callback_url/);
  });
});
