import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DnsTestServer } from '../../helpers/dns-test-server';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * Page fetches ask DNS_SERVERS, like every other DNS question of the service: a made-up name that
 * only the loopback DNS server knows is analysed (the system resolver cannot answer it).
 */
describe('page fetches resolve names through DNS_SERVERS', () => {
  const NAME = 'shop.made-up-resolver-name.test';
  let site: Server;
  let port: number;
  let dns: DnsTestServer;
  let service: TestService;
  const hosts: string[] = [];

  beforeAll(async () => {
    site = createServer((request, response) => {
      hosts.push(request.headers.host ?? '');
      if (request.url === '/robots.txt') return void response.writeHead(404).end();
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<html lang="en"><head><meta name="generator" content="WordPress 6.4.2"></head><body>Shop</body></html>',
        );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    dns = await DnsTestServer.start();
    dns.add(NAME, 'A', '127.0.0.1');
    service = await startTestService({
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '5000',
      RECRAWL_AFTER_DAYS: '0',
    });
  });
  afterAll(async () => {
    await service?.stop();
    await dns?.close();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('connects to the address the configured server gives and detects the page', async () => {
    const analysis = await service.running.services.analyzer.analyzePage(`http://${NAME}:${port}/`);
    if (!analysis.ok) throw new Error(`not analysed: ${JSON.stringify(analysis.errors)}`);
    expect(analysis.result.technologies.map((t) => t.slug)).toContain('wordpress');
    expect(hosts).toContain(`${NAME}:${port}`);
    expect(dns.queriesFor(NAME).map((q) => q.type)).toContain('A');
  });

  it('fails to fetch a name the configured server does not know, without trying the system resolver', async () => {
    const analysis = await service.running.services.analyzer.analyzePage(
      `http://unknown.made-up-resolver-name.test:${port}/`,
    );
    expect(analysis.ok).toBe(false);
    expect(dns.queriesFor('unknown.made-up-resolver-name.test').length).toBeGreaterThan(0);
  });

  it('says the DNS server did not answer when its questions go unanswered', async () => {
    const silent = 'silent.made-up-resolver-name.test';
    dns.add(silent, 'A', '127.0.0.1').fail(silent, 'timeout');
    const quick = await startTestService({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '100' });
    try {
      const analysis = await quick.running.services.analyzer.analyzePage(`http://${silent}:${port}/`);
      if (analysis.ok) throw new Error('analysed a page whose name never resolved');
      expect(JSON.stringify(analysis.errors)).toContain('the DNS server did not answer in time');
    } finally {
      await quick.stop();
    }
  });
});
