import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Conditional robots.txt: the file's ETag and Last-Modified are remembered with its body, the next
 * analysis asks with If-None-Match / If-Modified-Since, and a 304 answer's rules are the remembered
 * body's (the crawler still keeps out of what it forbids). A changed file is downloaded and obeyed;
 * a file too large to remember is asked for unconditionally. On SQLite and (with TEST_DATABASE_URL)
 * MariaDB.
 */
describe('conditional robots.txt', () => {
  let service: TestService;
  let server: Server;
  let base: string;
  /** What robots.txt forbids; its ETag follows it. */
  let forbidden = '/private/';
  /** Padding that makes the file too large to remember. */
  let padding = '';
  const requests: { path: string; headers: IncomingHttpHeaders; status: number }[] = [];
  const pages = ['/', '/private/', '/public/'];
  const lastModified = new Date('2026-01-01T00:00:00Z').toUTCString();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://site').pathname;
      const log = (status: number) => requests.push({ path, headers: request.headers, status });
      if (path === '/robots.txt') {
        const body = `User-agent: *\nDisallow: ${forbidden}\n${padding}`;
        const etag = `"${Buffer.from(forbidden).toString('hex')}-${padding.length}"`;
        if (request.headers['if-none-match'] === etag) {
          log(304);
          return void response.writeHead(304, { etag }).end();
        }
        log(200);
        return void response
          .writeHead(200, { 'content-type': 'text/plain', etag, 'last-modified': lastModified })
          .end(body);
      }
      if (!pages.includes(path)) {
        log(404);
        return void response.writeHead(404).end();
      }
      log(200);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html><head><title>Shop ${path}</title></head>
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

  const crawl = () => service.running.services.analyzer.crawl(`${base}/`);
  /** The requests since the last call: robots.txt's, and the pages read. */
  const taken = () => {
    const all = requests.splice(0);
    return {
      robots: all.filter((r) => r.path === '/robots.txt'),
      pages: all
        .filter((r) => r.path !== '/robots.txt')
        .map((r) => r.path)
        .sort(),
    };
  };

  it('a first crawl downloads robots.txt unconditionally and obeys it', async () => {
    expect((await crawl()).ok).toBe(true);
    const { robots, pages: read } = taken();
    expect(robots.map((r) => r.status)).toEqual([200]);
    expect(robots[0].headers['if-none-match']).toBeUndefined();
    expect(read).toEqual(['/', '/public/']);
  });

  it('a re-crawl asks conditionally, gets a 304, and still keeps out of what the remembered file forbids', async () => {
    expect((await crawl()).ok).toBe(true);
    const { robots, pages: read } = taken();
    expect(robots.map((r) => r.status)).toEqual([304]);
    expect(robots[0].headers['if-none-match']).toBe(`"${Buffer.from('/private/').toString('hex')}-0"`);
    expect(robots[0].headers['if-modified-since']).toBe(lastModified);
    expect(read).toEqual(['/', '/public/']);
    // A one-page analysis asks conditionally too.
    expect((await service.running.services.analyzer.analyzePage(`${base}/`)).ok).toBe(true);
    expect(taken().robots.map((r) => r.status)).toEqual([304]);
  });

  it('a changed file (new ETag) is downloaded, obeyed, and its validators sent next time', async () => {
    forbidden = '/public/';
    expect((await crawl()).ok).toBe(true);
    const changed = taken();
    expect(changed.robots.map((r) => r.status)).toEqual([200]);
    expect(changed.pages).toEqual(['/', '/private/']);
    expect((await crawl()).ok).toBe(true);
    const again = taken();
    expect(again.robots.map((r) => r.status)).toEqual([304]);
    expect(again.pages).toEqual(['/', '/private/']);
  });

  it('a file too large to remember is downloaded every time, never asked for conditionally', async () => {
    padding = `# ${'x'.repeat(40 * 1024)}\n`;
    expect((await crawl()).ok).toBe(true);
    expect(taken().robots.map((r) => r.status)).toEqual([200]);
    expect((await crawl()).ok).toBe(true);
    const { robots, pages: read } = taken();
    expect(robots.map((r) => r.status)).toEqual([200]);
    expect(robots[0].headers['if-none-match']).toBeUndefined();
    expect(read).toEqual(['/', '/private/']);
  });
});
