import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PageValidatorEntity, SiteEntity } from '../../../src/storage/entities';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Conditional re-crawls: a page's ETag and Last-Modified are remembered with what its analysis found;
 * the next analysis asks with If-None-Match / If-Modified-Since, a 304 reuses the stored result (the
 * same technologies, no body downloaded), and a changed page (new ETag) is downloaded and detected
 * again. On SQLite and (with TEST_DATABASE_URL) MariaDB.
 */
describe('conditional re-crawls', () => {
  let service: TestService;
  let server: Server;
  let base: string;
  /** The generator each page announces; its ETag follows it. */
  let generator = 'WordPress 6.4.2';
  const requests: { path: string; headers: IncomingHttpHeaders; status: number }[] = [];
  const pages = ['/', '/about/', '/contact/'];
  const lastModified = new Date('2026-01-01T00:00:00Z').toUTCString();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://site').pathname;
      const log = (status: number) => requests.push({ path, headers: request.headers, status });
      if (!pages.includes(path)) {
        log(404);
        return void response.writeHead(404).end();
      }
      const etag = `"${Buffer.from(generator).toString('hex')}"`;
      if (request.headers['if-none-match'] === etag) {
        log(304);
        return void response.writeHead(304, { etag, 'last-modified': lastModified }).end();
      }
      log(200);
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag, 'last-modified': lastModified })
        .end(
          `<!doctype html><html lang="en"><head><title>Shop ${path}</title>
          <meta name="generator" content="${generator}"></head>
          <body>${pages.map((p) => `<a href="${p}">${p}</a>`).join(' ')}</body></html>`,
        );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService({ DNS_SERVERS: '127.0.0.1:9', DNS_TIMEOUT_MS: '200' });
  });
  afterAll(async () => {
    await service?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const analyzer = () => service.running.services.analyzer;
  const db = () => service.running.services.db;
  const slugsOf = (analysis: Awaited<ReturnType<ReturnType<typeof analyzer>['crawl']>>) =>
    analysis.ok ? analysis.result.technologies.map((t) => t.slug).sort() : [];
  const pageRequests = () => {
    const taken = requests.splice(0).filter((r) => pages.includes(r.path));
    return taken.sort((a, b) => a.path.localeCompare(b.path));
  };

  it('remembers the validators of a first crawl: one row per page, no conditional header sent', async () => {
    const first = await analyzer().crawl(`${base}/`);
    expect(first.ok).toBe(true);
    expect(slugsOf(first)).toContain('wordpress');
    const sent = pageRequests();
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const r of sent) expect(r.headers['if-none-match']).toBeUndefined();
    expect(await db().manager.count(PageValidatorEntity)).toBe(3);
  });

  it('a re-crawl sends If-None-Match and If-Modified-Since, gets 304s, and reports the same technologies', async () => {
    const before = await analyzer().crawl(`${base}/`);
    requests.splice(0); // that crawl was conditional already; the next one is the one looked at
    const again = await analyzer().crawl(`${base}/`);
    expect(again.ok).toBe(true);
    const sent = pageRequests();
    expect(sent.map((r) => r.path)).toEqual(['/', '/about/', '/contact/']);
    expect(sent.map((r) => r.status)).toEqual([304, 304, 304]);
    for (const r of sent) {
      expect(r.headers['if-none-match']).toBe(`"${Buffer.from('WordPress 6.4.2').toString('hex')}"`);
      expect(r.headers['if-modified-since']).toBe(lastModified);
    }
    expect(slugsOf(again)).toEqual(slugsOf(before));
    const wordpress = again.ok ? again.result.technologies.find((t) => t.slug === 'wordpress') : undefined;
    expect(wordpress?.version).toBe('6.4.2');
    expect(again.ok && again.pages).toBe(3);
    // Still one row per URL, and the site's title survived the bodiless answer.
    expect(await db().manager.count(PageValidatorEntity)).toBe(3);
    const site = await db().manager.findOneBy(SiteEntity, { hostname: new URL(base).host });
    expect(site?.title).toBe('Shop /');
  });

  it('a one-page analysis is conditional too', async () => {
    const analysis = await analyzer().analyzePage(`${base}/`);
    expect(slugsOf(analysis)).toContain('wordpress');
    expect(pageRequests().map((r) => r.status)).toEqual([304]);
  });

  it('a changed page (new ETag) is downloaded and detected again', async () => {
    generator = 'Joomla! 4.2';
    const changed = await analyzer().crawl(`${base}/`);
    expect(changed.ok).toBe(true);
    const sent = pageRequests();
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200]);
    // The old validators were sent and did not match.
    expect(sent[0].headers['if-none-match']).toBe(`"${Buffer.from('WordPress 6.4.2').toString('hex')}"`);
    expect(slugsOf(changed)).toContain('joomla');
    expect(slugsOf(changed)).not.toContain('wordpress');
    // The new validators are what the next crawl sends: unchanged again, so 304s and Joomla.
    const next = await analyzer().crawl(`${base}/`);
    expect(pageRequests().map((r) => r.status)).toEqual([304, 304, 304]);
    expect(slugsOf(next)).toEqual(slugsOf(changed));
  });

  it('the rows go with their site', async () => {
    await db().transaction((m) => m.delete(SiteEntity, { hostname: new URL(base).host }));
    expect(await db().manager.count(PageValidatorEntity)).toBe(0);
  });
});
