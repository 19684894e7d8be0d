import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite, CrawledPage, CrawlOptions } from '../../../src/fetch';
import { CompanySite, startCompanySite } from '../../helpers/company-site';
import { startTestSites, TestSites } from '../../helpers/test-sites';

const options: CrawlOptions = { allowPrivateTargets: true, timeoutMs: 2_000, connectTimeoutMs: 1_000 };

let sites: TestSites;
beforeAll(async () => {
  sites = await startTestSites();
});
afterAll(async () => {
  await sites.close();
});

function pathsOf(pages: CrawledPage[]): string[] {
  return pages.map((page) => new URL(page.url).pathname + new URL(page.url).search);
}

describe('crawlSite', () => {
  it('crawls contact pages first, then breadth-first, up to 25 pages, marking the root page once', async () => {
    const before = sites.requests.length;
    const result = await crawlSite(sites.url('/'), options);
    expect(result.pages).toHaveLength(25);
    expect(result.pages.every((page) => page.page !== undefined)).toBe(true);
    expect(result.pages.filter((page) => page.isRoot).map((page) => page.url)).toEqual([sites.url('/')]);
    const first = pathsOf(result.pages).slice(0, 5);
    expect(first[0]).toBe('/');
    // Two pages are fetched at a time: contact and about start together, then blog and shop.
    expect(first.slice(1, 3).sort()).toEqual(['/about/', '/contact/']);
    expect(first.slice(3, 5).sort()).toEqual(['/blog/', '/shop/']);
    expect(result.pages.map((page) => page.depth).slice(0, 7)).toEqual([0, 1, 1, 1, 1, 2, 2]);
    expect(result.deadlineReached).toBe(false);

    const requested = sites.requests.slice(before).map((request) => request.path);
    expect(requested.filter((path) => path === '/robots.txt')).toHaveLength(1);
    expect(requested.some((path) => path.startsWith('/private/'))).toBe(false);
    expect(requested.some((path) => path.endsWith('.pdf'))).toBe(false);
    expect(requested.filter((path) => path === '/' || path.startsWith('/?'))).toHaveLength(1);
    expect(result.disallowedByRobots).toBe(1);
  });

  /** A site of three linked pages whose robots.txt answers as `robots` says; the paths asked. */
  async function siteWithRobots(
    robots: (response: import('node:http').ServerResponse) => void,
  ): Promise<{ url: string; asked: string[]; server: Server }> {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url!);
      if (request.url === '/robots.txt') return robots(response);
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html><body><a href="/a/">a</a> <a href="/b/">b</a></body></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, asked, server };
  }

  it.each([
    ['answers 503', (response: import('node:http').ServerResponse) => void response.writeHead(503).end()],
    ['drops the connection', (response: import('node:http').ServerResponse) => response.socket!.destroy()],
  ])(
    'keeps to the start page when robots.txt %s (RFC 9309: unreachable means disallowed)',
    async (_, robots) => {
      const site = await siteWithRobots(robots);
      try {
        const result = await crawlSite(site.url, options);
        expect(pathsOf(result.pages)).toEqual(['/']);
        expect(site.asked.filter((path) => path !== '/robots.txt')).toEqual(['/']);
        expect(result.disallowedByRobots).toBe(2);
        expect(result.siteFacts?.robotsUnreachable).toBe(true);
      } finally {
        site.server.close();
      }
    },
  );

  it('crawls every linked page when the site has no robots.txt (404)', async () => {
    const site = await siteWithRobots((response) => void response.writeHead(404).end());
    try {
      const result = await crawlSite(site.url, options);
      expect(pathsOf(result.pages).sort()).toEqual(['/', '/a/', '/b/']);
      expect(result.disallowedByRobots).toBe(0);
      expect(result.siteFacts?.robotsUnreachable).toBeUndefined();
    } finally {
      site.server.close();
    }
  });

  it('shares the site facts and one cookie jar across pages', async () => {
    const before = sites.requests.length;
    const result = await crawlSite(sites.url('/'), { ...options, maxPages: 3 });
    const [first, ...others] = result.pages;
    for (const page of others) expect(page.page?.siteFacts).toBe(first.page?.siteFacts);
    expect(result.siteFacts?.robots).toContain('Disallow: /private/');
    const made = sites.requests.slice(before);
    expect(made[0].cookie).toBe(''); // a new crawl starts without cookies
    expect(made.find((request) => request.path === '/about/')?.cookie).toMatch(/PHPSESSID=homesession/);
  });

  it('respects a lower page limit and never goes beyond 25', async () => {
    expect((await crawlSite(sites.url('/'), { ...options, maxPages: 4 })).pages).toHaveLength(4);
    expect((await crawlSite(sites.url('/blog/'), { ...options, maxPages: 1000 })).pages).toHaveLength(25);
  });

  it('bounds the requests in flight per host', async () => {
    await crawlSite(sites.url('/blog/'), {
      ...options,
      concurrencyPerHost: 2,
      maxScripts: 0,
      maxStylesheets: 0,
    });
    expect(sites.peakConcurrency()).toBeLessThanOrEqual(2);
  });

  it('reports each page to onPage as it arrives, and adds the root when starting deeper', async () => {
    const seen: string[] = [];
    const result = await crawlSite(sites.url('/about/'), {
      ...options,
      maxPages: 3,
      onPage: (page) => {
        seen.push(page.url);
      },
    });
    expect(seen).toEqual(result.pages.map((page) => page.url));
    expect(pathsOf(result.pages).slice(0, 2)).toEqual(['/about/', '/']);
    expect(result.pages[1].isRoot).toBe(true);
    expect(result.hostnames).toContain('twitter.com');
    expect(result.languages).toEqual(['en-us', 'en']);
  });

  it('ends with the start page error when the start page fails', async () => {
    const result = await crawlSite(sites.url('/error'), options);
    expect(result.pages).toHaveLength(1);
    expect(result.pages[0].error?.toJSON()).toEqual({ type: 'RESPONSE_NOT_OK', message: expect.any(String) });
    expect(result.siteFacts).toBeUndefined();
  });

  it('stops at the overall deadline', async () => {
    const result = await crawlSite(sites.url('/slow'), { ...options, timeoutMs: 10_000, deadlineMs: 200 });
    expect(result.deadlineReached).toBe(true);
    expect(result.pages[0].error).toMatchObject({
      type: 'NO_RESPONSE',
      message: expect.stringMatching(/deadline/),
    });
  });

  it('rejects when onPage throws', async () => {
    await expect(
      crawlSite(sites.url('/'), {
        ...options,
        onPage: () => {
          throw new Error('detector failed');
        },
      }),
    ).rejects.toThrow('detector failed');
  });
});

describe('crawlSite on a company site with more links than the page cap', () => {
  let company: CompanySite;
  beforeAll(async () => {
    company = await startCompanySite();
  });
  afterAll(async () => {
    await company.close();
  });

  it('fetches the contact, imprint, about, team and legal pages before the product pages', async () => {
    const result = await crawlSite(`${company.url}/`, { ...options, maxPages: 8 });
    const paths = result.pages.map((page) => new URL(page.url).pathname);
    expect(paths).toHaveLength(8);
    expect(paths[0]).toBe('/');
    // Two pages are fetched at a time, so pages of one rank may arrive in either order, and the
    // leadership page (linked from /about/ only) may come just after the privacy page.
    expect(paths.slice(1, 3).sort()).toEqual(['/contact/', '/impressum/']);
    expect(paths.slice(3, 7).sort()).toEqual(['/about/', '/about/leadership/', '/privacy/', '/team/']);
    expect(paths.slice(3, 5).sort()).toEqual(['/about/', '/team/']);
    // Then breadth-first again: the first ordinary link of the home page.
    expect(paths[7]).toBe('/products/robot-1/');
  });
});
