import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crawlSite } from '../../../src/fetch';

/**
 * Pages of a site share their bundles: a crawl fetches each script and stylesheet once, however
 * many of its pages reference it, and every page is still detected with the asset's content.
 */
describe('a crawl fetches each shared asset once', () => {
  let server: Server;
  let base: string;
  const hits = new Map<string, number>();

  beforeAll(async () => {
    const pages = Array.from({ length: 8 }, (_, i) => `/page-${i}/`);
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://site').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/assets/app.js')
        return void response
          .writeHead(200, { 'content-type': 'application/javascript' })
          .end('window.app = "1.0";');
      if (path === '/assets/site.css')
        return void response.writeHead(200, { 'content-type': 'text/css' }).end('body { color: black }');
      if (path === '/robots.txt') return void response.writeHead(404).end();
      if (path !== '/' && !pages.includes(path)) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><head><title>${path}</title>
        <script src="/assets/app.js"></script><link rel="stylesheet" href="/assets/site.css"></head>
        <body>${pages.map((p) => `<a href="${p}">${p}</a>`).join(' ')}</body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches app.js and site.css once for nine pages', async () => {
    const crawl = await crawlSite(`${base}/`, {
      allowPrivateTargets: true,
      maxPages: 9,
      dnsServers: ['127.0.0.1:9'],
      dnsTimeoutMs: 200,
    });
    const fetched = crawl.pages.filter((p) => p.page);
    expect(fetched).toHaveLength(9);
    expect(hits.get('/assets/app.js')).toBe(1);
    expect(hits.get('/assets/site.css')).toBe(1);
    for (const crawled of fetched) expect(crawled.page!.input.scripts).toEqual(['window.app = "1.0";']);
  });
});
