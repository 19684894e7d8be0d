import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crawlSite, fetchPage } from '../../../src/fetch';
import { fetchOptionsOf } from '../../../src/services/services';
import { CompanySite, startCompanySite } from '../../helpers/company-site';
import { DnsTestServer } from '../../helpers/dns-test-server';
import { writeMmdb } from '../../helpers/mmdb-writer';
import { startTestSites, TestSites } from '../../helpers/test-sites';
import { startTestService, TestService } from '../../helpers/test-service';

/**
 * The enrichment step end to end: real local sites crawled by the real fetcher, the service's GeoIP
 * database injected with GEOIP_DATABASE_PATH (a test MMDB that knows 127.0.0.0/8), the DNS facts from
 * a real DNS server on loopback, the language detector loaded, then the pure library.
 */
describe('the enrichment step on real local sites', () => {
  let dir: string;
  let company: CompanySite;
  let sites: TestSites;
  let dns: DnsTestServer;
  let service: TestService;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'geoip-e2e-'));
    const database = join(dir, 'loopback.mmdb');
    writeFileSync(
      database,
      writeMmdb([{ cidr: '127.0.0.0/8', data: { country_code: 'DE', state1: 'Berlin' } }]),
    );
    [company, sites, dns] = await Promise.all([startCompanySite(), startTestSites(), DnsTestServer.start()]);
    dns.zone(
      `
      @       IN TXT "v=spf1 include:_spf.mail.test -all"
      _dmarc  IN TXT "v=DMARC1; p=quarantine"
      `,
      'acme-robotics.test',
    );
    service = await startTestService({
      GEOIP_DATABASE_PATH: database,
      DNS_SERVERS: dns.address,
      DNS_TIMEOUT_MS: '500',
    });
  });
  afterAll(async () => {
    await Promise.all([service?.stop(), company?.close(), sites?.close(), dns?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('crawls a company site and derives its record, with the GeoIP country of 127.0.0.1 and its DNS facts', async () => {
    const { services } = service.running;
    const crawl = await crawlSite(`http://acme-robotics.test:${company.port}/`, {
      ...fetchOptionsOf(services.config),
      lookup: async () => ['127.0.0.1'],
      maxPages: 8,
    });
    const pages = crawl.pages.flatMap((crawled) => (crawled.page ? [crawled.page] : []));
    expect(pages).toHaveLength(8);
    const technologies = services.engine.analyze(pages[0].input).technologies;
    const record = await services.enricher.enrich(pages, technologies, { trafficRank: 50_000 });

    expect(record.locale).toMatchObject({
      language: 'en',
      ipCountry: 'DE',
      ipRegion: 'Berlin',
      ipCountries: ['DE'],
    });
    expect(record.security).toEqual({ https: false, dns: { spf: true, dmarc: true } });
    expect(record.company).toMatchObject({
      companyName: 'Acme Robotics GmbH',
      companySize: '51-200',
      companyFounded: 2009,
    });
    expect(record.phone.phone).toEqual(
      expect.arrayContaining(['+49301234567', '+16502530000', '+33142685300']),
    );
    expect(record.email.email).toEqual(
      expect.arrayContaining(['sales@acme-robotics.de', 'info@acme-robotics.de']),
    );
    expect(record.contact.employees).toEqual(
      expect.arrayContaining([{ name: 'Grace Hopper', title: 'Chief Operating Officer' }]),
    );
    expect(record.social.linkedin).toEqual(['company/acme-robotics', 'in/priya-natarajan']);
    expect(record.trackers.trackers).toEqual(expect.arrayContaining(['Google Analytics']));
    expect(record.signals.trafficLevel).toBe('Medium');
  });

  it('reads the certificate and protocol of an https site, and no DNS facts for a site on an IP address', async () => {
    const { services } = service.running;
    const page = await fetchPage(`${sites.httpsUrl}/`, fetchOptionsOf(services.config));
    const record = await services.enricher.enrich([page], []);
    expect(record.security).toEqual({
      https: true,
      certInfo: { issuer: sites.certificate.issuer, protocol: 'TLSv1.3', validTo: expect.any(Number) },
    });
    expect(record.security.certInfo!.validTo! * 1000).toBeGreaterThan(Date.now());
    expect(record.locale).toMatchObject({ ipCountry: 'DE', ipCountries: ['DE'] });
  });

  it('falls back to the language detector for a page that declares none', async () => {
    const { services } = service.running;
    const page = await fetchPage(sites.url('/'), fetchOptionsOf(services.config));
    page.input.html = `<html><body><p>${'Wir bauen kollaborative Roboter für kleine Fabriken und richten sie an einem Tag ein. '.repeat(5)}</p></body></html>`;
    page.input.headers = {};
    const record = await services.enricher.enrich([page], []);
    expect(record.locale.language).toBe('de');
  });
});
