import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DetectionEngine } from '../../../src/detection';
import { PageValidatorStore } from '../../../src/services/analysis/page-validators';
import { SiteAnalyzer } from '../../../src/services/analysis/site-analyzer';
import { SiteEnricher } from '../../../src/services/analysis/site-enricher';
import { fetchOptionsOf } from '../../../src/services/services';
import { SiteEnrichmentEntity, SiteEntity, SiteTechnologyEntity } from '../../../src/storage/entities';
import { startTestService, type TestService } from '../../helpers/test-service';
import * as parsedHtml from '../../../src/html/parsed-html';

// Every reading of a page's markup goes through parsePageHtml (src/html), once per page: counted
// through a wrapper (an ES export cannot be spied on in place).
jest.mock('../../../src/html/parsed-html', () => {
  const actual = jest.requireActual('../../../src/html/parsed-html');
  return { ...actual, parsePageHtml: jest.fn(actual.parsePageHtml) };
});

/**
 * What a freshness re-crawl costs, counted rather than timed: the requests' validators at a real
 * server, and the HTML parses (htmlparser2, which the fetcher, the enrichment and the detection's
 * document all parse with), detections and enrichments of the analyzer, through spies. A page
 * answering 304 is not parsed, detected or enriched, and its site's last analysis time moves; a
 * 304 after a fingerprint switch is not trusted (the page is downloaded and detected again); when
 * the start page changed, the other pages are asked unconditionally, so the enrichment reads them all.
 */
describe('the cost of a conditional re-crawl', () => {
  let service: TestService;
  let server: Server;
  let base: string;
  /** Each path's content; its ETag follows it. */
  const content: Record<string, string> = {
    '/': 'WordPress 6.4.2',
    '/about/': 'about us',
    '/contact/': 'mail shop@example.com',
  };
  const requests: { path: string; headers: IncomingHttpHeaders; status: number }[] = [];
  let engine: DetectionEngine;
  let analyzer: SiteAnalyzer;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://site').pathname;
      if (!(path in content)) return void response.writeHead(404).end();
      const etag = `"${Buffer.from(content[path]).toString('hex')}"`;
      const status = request.headers['if-none-match'] === etag ? 304 : 200;
      requests.push({ path, headers: request.headers, status });
      if (status === 304) return void response.writeHead(304, { etag }).end();
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(
        `<!doctype html><html lang="en"><head><title>Shop ${path}</title>
          <meta name="generator" content="${content['/']}"></head><body><p>${content[path]}</p>
          ${Object.keys(content)
            .map((p) => `<a href="${p}">${p}</a>`)
            .join(' ')}</body></html>`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService({ DNS_SERVERS: '127.0.0.1:9', DNS_TIMEOUT_MS: '100' });
    const services = service.running.services;
    engine = services.engine;
    // The service's own pieces, with an engine source the test switches (a fingerprint activation).
    analyzer = new SiteAnalyzer(
      { current: () => engine },
      services.siteIndex,
      services.events,
      fetchOptionsOf(services.config),
      {
        maxPages: 25,
        concurrencyPerHost: 1,
        deadlineMs: 30_000,
        pageValidators: new PageValidatorStore(services.db),
      },
      { enricher: new SiteEnricher(services.geoip, () => undefined) },
    );
  });
  afterAll(async () => {
    await service?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** One crawl, with what it cost. */
  async function crawl() {
    requests.splice(0);
    const parses = parsedHtml.parsePageHtml as jest.Mock;
    parses.mockClear();
    const detections = jest.spyOn(DetectionEngine.prototype, 'analyze');
    const enrichments = jest.spyOn(SiteEnricher.prototype, 'enrichForIndex');
    try {
      const analysis = await analyzer.crawl(`${base}/`);
      expect(analysis.ok).toBe(true);
      return {
        analysis,
        statuses: Object.fromEntries(requests.map((r) => [r.path, r.status])),
        conditional: requests.filter((r) => r.headers['if-none-match'] !== undefined).length,
        parses: parses.mock.calls.length,
        // The service warms its engine up once at start, on a page of its own: not the crawl's.
        detections: detections.mock.calls.filter(([input]) => !input.url.includes('warm-up.invalid')).length,
        enrichments: enrichments.mock.calls.length,
      };
    } finally {
      detections.mockRestore();
      enrichments.mockRestore();
    }
  }
  const site = () =>
    service.running.services.db.manager.findOneByOrFail(SiteEntity, { hostname: new URL(base).host });

  it('a first crawl parses, detects and enriches every page', async () => {
    const first = await crawl();
    expect(first.statuses).toEqual({ '/': 200, '/about/': 200, '/contact/': 200 });
    expect(first.conditional).toBe(0);
    expect(first.detections).toBe(3);
    // One reading per page, shared by the fetcher, the detection and the enrichment.
    expect(first.parses).toBe(3);
    expect(first.enrichments).toBe(1);
  });

  it('an unchanged site answers 304 everywhere: no parse, no detection, no enrichment, and its last analysis moves', async () => {
    const before = await site();
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    await service.running.services.db.manager.update(
      SiteEntity,
      { id: before.id },
      { lastAnalyzedAt: longAgo },
    );
    await service.running.services.db.manager.update(
      SiteTechnologyEntity,
      { siteId: before.id },
      { confirmedAt: longAgo },
    );
    const again = await crawl();
    expect(again.statuses).toEqual({ '/': 304, '/about/': 304, '/contact/': 304 });
    expect(again.conditional).toBe(3);
    expect(again.parses).toBe(0);
    expect(again.detections).toBe(0);
    expect(again.enrichments).toBe(0);
    expect(again.analysis.ok && again.analysis.result.technologies.map((t) => t.slug)).toContain('wordpress');
    const after = await site();
    expect(after.lastAnalyzedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(after.title).toBe('Shop /');
    const wordpress = await service.running.services.db.manager.findOneByOrFail(SiteTechnologyEntity, {
      siteId: after.id,
      slug: 'wordpress',
    });
    expect(wordpress.confirmedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('after a fingerprint switch a 304 is not trusted: every page is downloaded and detected again', async () => {
    const previous = engine;
    engine = new DetectionEngine(previous.fingerprints, 'fp-after-switch');
    const switched = await crawl();
    expect(switched.conditional).toBe(0);
    expect(switched.statuses).toEqual({ '/': 200, '/about/': 200, '/contact/': 200 });
    expect(switched.detections).toBe(3);
    expect(switched.analysis.ok && switched.analysis.result.fingerprintsVersion).toBe('fp-after-switch');
    // The next crawl on the same fingerprints is conditional again.
    expect((await crawl()).parses).toBe(0);
  });

  it('a changed start page makes the rest of the crawl unconditional, so the enrichment reads every page', async () => {
    content['/'] = 'WordPress 6.5';
    const changed = await crawl();
    expect(changed.statuses).toEqual({ '/': 200, '/about/': 200, '/contact/': 200 });
    expect(changed.conditional).toBe(1); // the start page only: one request per page
    expect(changed.detections).toBe(3);
    expect(changed.enrichments).toBe(1);
  });

  it('an unchanged start page with a changed page below it: the unchanged pages are read again for the enrichment', async () => {
    const enrichment = (siteId: number) =>
      service.running.services.db.manager.findOneByOrFail(SiteEnrichmentEntity, { siteId });
    const siteId = (await site()).id;
    const before = await enrichment(siteId);
    content['/contact/'] = 'mail sales@example.com';
    const mixed = await crawl();
    // /about/ answered 304 (no detection), then was downloaded for the enrichment.
    expect(requests.filter((r) => r.path === '/about/').map((r) => r.status)).toEqual([304, 200]);
    expect(mixed.statuses['/contact/']).toBe(200);
    expect(mixed.detections).toBe(1);
    expect(mixed.enrichments).toBe(1);
    // A new record, read from all three pages (one read from /contact/ alone would say 1).
    const stored = await enrichment(siteId);
    expect(stored.pages).toBe(3);
    expect(stored.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
  });
});
