import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { PermanentJobError, type JobContext, type JobRunner } from '../../../src/jobs';
import { createSubdomainDiscoveryHandler } from '../../../src/workers/subdomain-discovery.worker';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';
import { expectMatchesContract, fetchOpenApiDocument, OpenApiDocument } from '../../helpers/openapi-contract';
import { startTestService, TestService } from '../../helpers/test-service';
import { discoveryFinished, getSubdomains, namesOf, startDiscoveryRunner } from './subdomain-test-kit';

/**
 * The finder end to end: real DNS zones on a loopback name server (records, a wildcard zone, a zone
 * that allows transfer), a real HTTPS site crawled by the analyzer, the background job run by a
 * job runner, and the answers over REST (checked against the served OpenAPI document) and GraphQL.
 */
describe('subdomain finder sources, over REST and GraphQL', () => {
  let dns: DnsZoneServer;
  let site: Server;
  let sitePort: number;
  let service: TestService;
  let runner: JobRunner | undefined;
  let contract: OpenApiDocument;
  let key: string;

  beforeAll(async () => {
    dns = await startDnsZoneServer([
      {
        origin: 'dns.test',
        records: {
          'dns.test': {
            NS: ['ns1.dns.test'],
            MX: [{ priority: 10, exchange: 'mail.dns.test' }],
            TXT: ['v=spf1 include:_spf.dns.test include:_spf.other.test ~all'],
          },
          'ns1.dns.test': { A: ['127.0.0.1'] },
          'mail.dns.test': { A: ['192.0.2.1'] },
          // relay.dns.test is named by SPF but has no address: kept, marked, hidden by default.
          '_spf.dns.test': { TXT: ['v=spf1 a:relay.dns.test ip4:192.0.2.0/24 -all'] },
          '_dmarc.dns.test': { TXT: ['v=DMARC1; p=none; rua=mailto:dmarc@reports.dns.test'] },
          'reports.dns.test': { A: ['192.0.2.3'] },
          'www.dns.test': { CNAME: 'web.dns.test' },
          'web.dns.test': { A: ['192.0.2.2'] },
          '_sip._tcp.dns.test': { SRV: [{ priority: 0, weight: 0, port: 5060, target: 'sip.dns.test' }] },
          'sip.dns.test': { A: ['192.0.2.4'] },
        },
      },
      {
        origin: 'wild.test',
        records: {
          'wild.test': { NS: ['ns1.wild.test'] },
          '*.wild.test': { A: ['192.0.2.50', '192.0.2.51'] },
          'www.wild.test': { A: ['192.0.2.60'] },
          'mail.wild.test': { A: ['192.0.2.51'] },
        },
      },
      {
        origin: 'open.test',
        allowTransfer: true,
        records: {
          'open.test': { NS: ['ns1.open.test'] },
          'ns1.open.test': { A: ['127.0.0.1'] },
          'internal-only.open.test': { A: ['10.0.0.1'] },
          'vpn.open.test': { CNAME: 'gw.open.test' },
          'intranet.open.test': { AAAA: ['2001:db8::5'] },
        },
      },
      {
        origin: 'crawl.test',
        records: {
          'crawl.test': { NS: ['ns1.crawl.test'] },
          'ns1.crawl.test': { A: ['127.0.0.1'] },
          'www.crawl.test': { A: ['127.0.0.1'] },
          'blog.crawl.test': { A: ['192.0.2.70'] },
          'static.crawl.test': { A: ['192.0.2.71'] },
          'secure.crawl.test': { A: ['192.0.2.72'] },
        },
      },
    ]);
    site = await startCrawledSite();
    sitePort = (site.address() as AddressInfo).port;
    service = await startTestService({
      DNS_SERVERS: dns.server,
      // The test runs the discovery jobs itself, so it sees the answer before and after them.
      EMBEDDED_WORKER: 'false',
      SUBDOMAIN_ACTIVE_DISCOVERY: 'true',
      SUBDOMAIN_ZONE_TRANSFER: 'true',
      SUBDOMAIN_ZONE_TRANSFER_PORT: String(dns.port),
      SUBDOMAIN_DNS_QUERY_TIMEOUT_MS: '1000',
      SUBDOMAIN_DNS_TRIES: '1',
      SUBDOMAIN_INLINE_DNS_BUDGET_MS: '3000',
      SUBDOMAIN_DISCOVERY_CONCURRENCY: '50',
      FETCH_MAX_SCRIPTS: '0',
      FETCH_MAX_STYLESHEETS: '0',
    });
    contract = await fetchOpenApiDocument(service.url);
    ({ apiKey: key } = await service.createAccount({ plan: 'business', credits: 1000 }));
  });

  afterAll(async () => {
    await runner?.stop();
    await service?.stop();
    await new Promise((resolve) => site?.close(resolve));
    await dns?.close();
  });

  const runJobs = () => (runner ??= startDiscoveryRunner(service));

  it("reads an unseen domain's DNS records inline, then checks the names in the background", async () => {
    const first = await getSubdomains(service, key, { domains: 'WWW.DNS.test.' });
    expect(first.status).toBe(200);
    expectMatchesContract(contract, 'GET', '/v2/subdomains/', 200, first.body, first.headers);
    expect(first.body).toHaveLength(1);
    expect(first.body[0].domain).toBe('dns.test');
    expect(first.body[0]).not.toHaveProperty('moreAfter');
    // NS, MX, SPF (through an include), DMARC, CNAME target, SRV target; never `_spf`, never other domains.
    expect(namesOf(first.body[0])).toEqual([
      'mail.dns.test',
      'ns1.dns.test',
      'relay.dns.test',
      'reports.dns.test',
      'sip.dns.test',
      'web.dns.test',
    ]);
    const entry = first.body[0].subdomains['mail.dns.test'];
    expect(entry).toEqual({ createdAt: expect.any(Number), updatedAt: expect.any(Number) });
    expect(Math.abs(entry.createdAt - Date.now() / 1000)).toBeLessThan(600);

    runJobs();
    await discoveryFinished(service, 'dns.test');
    const after = await getSubdomains(service, key, { domains: 'dns.test' });
    // relay.dns.test does not resolve: kept but hidden; the wordlist found www.
    expect(namesOf(after.body[0])).not.toContain('relay.dns.test');
    expect(namesOf(after.body[0])).toEqual(
      expect.arrayContaining(['mail.dns.test', 'web.dns.test', 'www.dns.test']),
    );
    const all = await getSubdomains(service, key, { domains: 'dns.test', includeUnresolvable: 'true' });
    expect(namesOf(all.body[0])).toContain('relay.dns.test');
    // First seen is kept across sightings.
    expect(all.body[0].subdomains['mail.dns.test'].createdAt).toBe(entry.createdAt);
  });

  it('drops wordlist names of a wildcard zone that answer like the wildcard', async () => {
    await getSubdomains(service, key, { domains: 'wild.test' });
    runJobs();
    await discoveryFinished(service, 'wild.test');
    const res = await getSubdomains(service, key, { domains: 'wild.test', limit: '1000' });
    const names = namesOf(res.body[0]);
    expect(names).toContain('www.wild.test');
    // Every guessed label "resolves" under the wildcard; none of them may be listed.
    expect(names).not.toContain('mail.wild.test');
    expect(names).not.toContain('api.wild.test');
    expect(names).not.toContain('dev.wild.test');
    expect(names.length).toBeLessThan(5);
  });

  it('lists the names of a zone transfer when transfers are enabled', async () => {
    await getSubdomains(service, key, { domains: 'open.test' });
    runJobs();
    await discoveryFinished(service, 'open.test');
    const res = await getSubdomains(service, key, { domains: 'open.test' });
    expect(namesOf(res.body[0])).toEqual(
      expect.arrayContaining(['internal-only.open.test', 'intranet.open.test', 'vpn.open.test']),
    );
    // gw.open.test was only a CNAME target without records of its own.
    expect(namesOf(res.body[0])).not.toContain('gw.open.test');
    const all = await getSubdomains(service, key, { domains: 'open.test', includeUnresolvable: 'true' });
    expect(namesOf(all.body[0])).toContain('gw.open.test');
  });

  it('runs the discovery job idempotently: a rerun repeats no name and keeps first-seen times', async () => {
    const before = await getSubdomains(service, key, { domains: 'open.test', includeUnresolvable: 'true' });
    const report = await service.running.services.subdomains.discover('open.test');
    expect(report.zoneTransfer).toBe(true);
    const again = await getSubdomains(service, key, { domains: 'open.test', includeUnresolvable: 'true' });
    expect(namesOf(again.body[0])).toEqual(namesOf(before.body[0]));
    for (const [name, seen] of Object.entries(
      again.body[0].subdomains as Record<string, { createdAt: number }>,
    )) {
      expect(seen.createdAt).toBe(before.body[0].subdomains[name].createdAt);
    }
  });

  it('sends a job with a payload that is not a registrable domain to dead at once', async () => {
    const handler = createSubdomainDiscoveryHandler(service.running.services.subdomains);
    const context = { signal: new AbortController().signal } as JobContext;
    await expect(handler({ domain: '10.0.0.1' }, context)).rejects.toBeInstanceOf(PermanentJobError);
    await expect(handler({ domain: 'WWW.open.test' }, context)).rejects.toBeInstanceOf(PermanentJobError);
  });

  it('returns host names a crawl saw: links, assets, CSP and certificate names', async () => {
    // The service connects through the system resolver, so the site is fetched by address; the
    // names come from its page, headers and certificate.
    const analysis = await service.running.services.analyzer.analyzePage(`https://127.0.0.1:${sitePort}/`);
    expect(analysis.ok ? null : analysis.errors).toBeNull();
    const res = await getSubdomains(service, key, { domains: 'crawl.test' });
    expect(namesOf(res.body[0])).toEqual(
      expect.arrayContaining([
        'assets.crawl.test',
        'blog.crawl.test',
        'img.crawl.test',
        'secure.crawl.test',
        'static.crawl.test',
        'www.crawl.test',
      ]),
    );
    expect(namesOf(res.body[0])).not.toContain('elsewhere.test');
    runJobs();
    await discoveryFinished(service, 'crawl.test');
    const checked = await getSubdomains(service, key, { domains: 'crawl.test' });
    // img.crawl.test has no DNS records: hidden once checked.
    expect(namesOf(checked.body[0])).not.toContain('img.crawl.test');
    expect(namesOf(checked.body[0])).toContain('blog.crawl.test');
  });

  it('answers the GraphQL query with the connection-like shape', async () => {
    const res = await service.graphql(
      key,
      `query($domains: [String!]!, $limit: Int) {
        subdomains(domains: $domains, limit: $limit) { domain subdomains { name createdAt updatedAt } moreAfter }
      }`,
      { domains: ['dns.test', 'open.test'], limit: 10 },
    );
    expect(res.body.errors).toBeUndefined();
    const [dnsResult, openResult] = res.body.data.subdomains;
    expect(dnsResult.domain).toBe('dns.test');
    expect(openResult.domain).toBe('open.test');
    expect(dnsResult.subdomains[0]).toEqual({
      name: expect.stringMatching(/\.dns\.test$/),
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const names = dnsResult.subdomains.map((s: { name: string }) => s.name);
    expect(names).toEqual([...names].sort());
    expect(dnsResult.moreAfter === null || typeof dnsResult.moreAfter === 'string').toBe(true);
  });

  /** An HTTPS page linking to subdomains, with a CSP header and a certificate naming several hosts. */
  async function startCrawledSite(): Promise<Server> {
    const { cert, private: privateKey } = await generate([{ name: 'commonName', value: 'www.crawl.test' }], {
      keyType: 'ec',
      curve: 'P-256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: ['www.crawl.test', 'secure.crawl.test', '*.assets.crawl.test'].map((value) => ({
            type: 2 as const,
            value,
          })),
        },
      ],
    });
    const server = createServer({ cert, key: privateKey }, (request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.setHeader('content-security-policy', "img-src 'self' https://static.crawl.test");
      response.end(`<!doctype html><html><head><title>Crawl</title></head><body>
        <a href="https://blog.crawl.test/post">Blog</a>
        <img src="https://img.crawl.test/logo.png">
        <a href="https://elsewhere.test/">Elsewhere</a>
      </body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  }
});
