import { createDnsResolver } from '../../../src/fetch/dns-resolver';
import { DnsTestServer } from '../../helpers/dns-test-server';

/** The DNS test server, seen through the service's own resolver (node:dns, c-ares). */
describe('DnsTestServer', () => {
  let dns: DnsTestServer;
  let resolver: ReturnType<typeof createDnsResolver>;

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    resolver = createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });
    dns
      .zone(
        `
        ; a zone-file fragment with relative names
        @        600 IN SOA ns1 hostmaster 2024010101 3600 600 86400 300
        @            IN NS  ns1
        ns1          IN A   127.0.0.53
        @            IN MX  20 mx2
        @            IN MX  10 mx1.example.test.
        mx1          IN A   127.0.0.10
        mx2          IN AAAA ::1
        @            IN TXT "v=spf1 -all" "second; string"
        www          IN CNAME web
        web          IN A   127.0.0.80
        *.apps       IN A   127.0.0.99
        _sip._tcp    IN SRV 10 5 5060 sip
        deep.empty   IN A   127.0.0.7
        `,
        'example.test',
      )
      .add('nullmx.test', 'MX', '0 .')
      .add('Mixed.Case.Test.', 'A', '127.0.0.8')
      .add('big.test', 'TXT', Array.from({ length: 12 }, (_, i) => `"${'x'.repeat(200)}${i}"`).join(' '))
      .add('broken.test', 'A', '127.0.0.9')
      .fail('broken.test', 'SERVFAIL')
      .add('refused.test', 'A', '127.0.0.9')
      .fail('refused.test', 'REFUSED')
      .fail('silent.test', 'timeout');
  });

  afterAll(async () => {
    await dns.close();
  });

  it('answers A, AAAA, NS and SOA records, relative names completed with the origin', async () => {
    await expect(resolver.resolve4('mx1.example.test')).resolves.toEqual(['127.0.0.10']);
    await expect(resolver.resolve6('mx2.example.test')).resolves.toEqual(['::1']);
    await expect(resolver.resolveNs('example.test')).resolves.toEqual(['ns1.example.test']);
    await expect(resolver.resolveSoa('example.test')).resolves.toEqual({
      nsname: 'ns1.example.test',
      hostmaster: 'hostmaster.example.test',
      serial: 2024010101,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minttl: 300,
    });
  });

  it('answers MX records (in the order added) and a null MX as an empty exchange', async () => {
    await expect(resolver.resolveMx('example.test')).resolves.toEqual([
      { exchange: 'mx2.example.test', priority: 20 },
      { exchange: 'mx1.example.test', priority: 10 },
    ]);
    await expect(resolver.resolveMx('nullmx.test')).resolves.toEqual([{ exchange: '', priority: 0 }]);
  });

  it('keeps TXT character-strings apart, semicolons inside quotes included', async () => {
    await expect(resolver.resolveTxt('example.test')).resolves.toEqual([['v=spf1 -all', 'second; string']]);
  });

  it('follows a CNAME to the target records', async () => {
    await expect(resolver.resolve4('www.example.test')).resolves.toEqual(['127.0.0.80']);
    await expect(resolver.resolveCname('www.example.test')).resolves.toEqual(['web.example.test']);
  });

  it('answers SRV records', async () => {
    await expect(resolver.resolveSrv('_sip._tcp.example.test')).resolves.toEqual([
      { name: 'sip.example.test', port: 5060, priority: 10, weight: 5 },
    ]);
  });

  it('synthesises wildcard answers below the closest encloser only', async () => {
    await expect(resolver.resolve4('anything.apps.example.test')).resolves.toEqual(['127.0.0.99']);
    await expect(resolver.resolve4('a.b.apps.example.test')).resolves.toEqual(['127.0.0.99']);
    await expect(resolver.resolve4('other.example.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('tells NXDOMAIN (ENOTFOUND) from a name without that type or an empty non-terminal (ENODATA)', async () => {
    await expect(resolver.resolve4('missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveMx('mx1.example.test')).rejects.toMatchObject({ code: 'ENODATA' });
    await expect(resolver.resolve4('empty.example.test')).rejects.toMatchObject({ code: 'ENODATA' });
  });

  it('matches names case-insensitively', async () => {
    await expect(resolver.resolve4('mixed.case.test')).resolves.toEqual(['127.0.0.8']);
    await expect(resolver.resolve4('MIXED.case.TEST')).resolves.toEqual(['127.0.0.8']);
  });

  it('fails names on demand: SERVFAIL, REFUSED, no answer', async () => {
    await expect(resolver.resolve4('broken.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await expect(resolver.resolve4('refused.test')).rejects.toMatchObject({ code: 'EREFUSED' });
    await expect(resolver.resolve4('silent.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
  });

  it('answers over TCP when the UDP answer is truncated', async () => {
    const strings = await resolver.resolveTxt('big.test');
    expect(strings[0]).toHaveLength(12);
    expect(strings[0][11]).toBe(`${'x'.repeat(200)}11`);
    expect(dns.queriesFor('big.test').map((query) => query.transport)).toEqual(['udp', 'tcp']);
  });

  it('logs every question', async () => {
    await resolver.resolve4('web.example.test');
    expect(dns.queriesFor('WEB.example.test')).toEqual([
      { name: 'web.example.test', type: 'A', transport: 'udp' },
    ]);
  });
});
