import { resolveDnsFacts } from '../../../src/fetch';
import { DnsTestServer } from '../../helpers/dns-test-server';

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await DnsTestServer.start();
  dns.zone(
    `
    @     300 IN SOA ns1.dnsprovider.test. hostmaster.flavor.test. 1 3600 600 86400 300
    @         IN NS  ns1.dnsprovider.test.
    @         IN NS  ns2.dnsprovider.test.
    @         IN MX  10 aspmx.l.google.com.
    @         IN TXT "v=spf1 include:_spf.google.com " "~all"
    @         IN TXT "google-site-verification=abc"
    www       IN CNAME flavor.myshopify.test.
    _dmarc    IN TXT "v=DMARC1; p=reject; " "rua=mailto:dmarc@flavor.test"
    `,
    'flavor.test',
  );
  dns.zone(
    `
    @         IN TXT "v=spf1 -all"
    _dmarc    IN TXT "not a dmarc record"
    `,
    'nodmarc.test',
  );
  dns.fail('broken.test', 'SERVFAIL');
  dns.fail('silent.test', 'timeout');
});
afterAll(async () => {
  await dns.close();
});

describe('resolveDnsFacts', () => {
  it('reads TXT, MX, NS and SOA of the registrable domain and CNAME of the host', async () => {
    const facts = await resolveDnsFacts('www.flavor.test', { servers: [dns.address], timeoutMs: 500 });
    expect(facts.TXT.sort()).toEqual(['google-site-verification=abc', 'v=spf1 include:_spf.google.com ~all']);
    expect(facts.MX).toEqual(['aspmx.l.google.com']);
    expect(facts.NS.sort()).toEqual(['ns1.dnsprovider.test', 'ns2.dnsprovider.test']);
    expect(facts.SOA).toEqual(['ns1.dnsprovider.test hostmaster.flavor.test']);
    expect(facts.CNAME).toEqual(['flavor.myshopify.test']);
    expect(facts.DMARC).toEqual(['v=DMARC1; p=reject; rua=mailto:dmarc@flavor.test']);
    expect(facts.TXT.some((record) => record.startsWith('v=DMARC1'))).toBe(false);
    expect(dns.queriesFor('flavor.test').map((query) => query.type)).toEqual(
      expect.arrayContaining(['TXT', 'MX', 'NS', 'SOA']),
    );
  });

  it('asks _dmarc of the registrable domain and keeps only DMARC records', async () => {
    const facts = await resolveDnsFacts('shop.nodmarc.test', { servers: [dns.address], timeoutMs: 500 });
    expect(facts.TXT).toEqual(['v=spf1 -all']);
    expect(facts.DMARC).toEqual([]);
    expect(dns.queriesFor('_dmarc.nodmarc.test').map((query) => query.type)).toEqual(['TXT']);
  });

  it('yields empty lists for failing or silent servers instead of throwing', async () => {
    const empty = { TXT: [], MX: [], NS: [], SOA: [], CNAME: [], DMARC: [] };
    await expect(
      resolveDnsFacts('www.broken.test', { servers: [dns.address], timeoutMs: 200 }),
    ).resolves.toEqual(empty);
    await expect(resolveDnsFacts('silent.test', { servers: [dns.address], timeoutMs: 100 })).resolves.toEqual(
      empty,
    );
    await expect(
      resolveDnsFacts('unknown.test', { servers: [dns.address], timeoutMs: 200 }),
    ).resolves.toEqual(empty);
  });

  it('asks nothing for an IP address', async () => {
    const before = dns.queries.length;
    await resolveDnsFacts('127.0.0.1', { servers: [dns.address] });
    expect(dns.queries.length).toBe(before);
  });
});
