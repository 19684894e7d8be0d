import { collectDnsSubdomains } from '../../../src/subdomains/dns-subdomain-collector';
import { startDnsZoneServer, type DnsZoneServer } from '../../helpers/dns-zone-server';

describe('collectDnsSubdomains against a real DNS server', () => {
  let dns: DnsZoneServer;

  beforeAll(async () => {
    dns = await startDnsZoneServer(
      [
        {
          origin: 'example.test',
          records: {
            'example.test': {
              A: ['192.0.2.1'],
              NS: ['ns1.example.test', 'ns.provider.test'],
              MX: [
                { priority: 10, exchange: 'Mail.Example.Test' },
                { priority: 20, exchange: 'mx.outside.test' },
              ],
              TXT: [
                'google-site-verification=abc',
                'v=spf1 include:_spf.example.test include:_spf.outside.test -all',
              ],
            },
            'ns1.example.test': { A: ['192.0.2.2'] },
            'mail.example.test': { A: ['192.0.2.3'] },
            // One record split into two character-strings, and a loop back to _spf.
            '_spf.example.test': {
              TXT: [
                ['v=spf1 a:smtp-out.example.test include:spf2.', 'example.test redirect=_spf.example.test'],
              ],
            },
            'spf2.example.test': {
              TXT: ['v=spf1 mx:mx-backup.example.test ip4:192.0.2.0/24 include:spf3.example.test'],
            },
            'spf3.example.test': { TXT: ['v=spf1 a:deep.example.test -all'] },
            '_dmarc.example.test': {
              TXT: [
                'v=DMARC1; p=reject; rua=mailto:agg@reports.example.test,mailto:x@dmarc.vendor.test; ruf=mailto:f@Forensics.Example.Test!10m',
              ],
            },
            '_sip._tls.example.test': {
              SRV: [{ priority: 10, weight: 5, port: 5061, target: 'sip.example.test' }],
            },
            '_autodiscover._tcp.example.test': {
              SRV: [{ priority: 0, weight: 0, port: 443, target: 'autodiscover.outlook.test' }],
            },
            '_caldavs._tcp.example.test': {
              SRV: [{ priority: 0, weight: 0, port: 443, target: 'cal.example.test' }],
            },
            'www.example.test': { CNAME: 'edge.example.test' },
            'edge.example.test': { A: ['192.0.2.4'] },
            'shop.example.test': { CNAME: 'storefront.example.test' },
            'legacy.example.test': { CNAME: 'legacy.cdn.outside.test' },
          },
        },
        {
          origin: 'slow.test',
          records: {
            'slow.test': { NS: ['ns1.slow.test'], TXT: ['v=spf1 include:never.slow.test -all'] },
          },
        },
      ],
      { silentNames: ['never.slow.test', '_sip._tls.slow.test', '_dmarc.slow.test'] },
    );
  });

  afterAll(() => dns.close());

  const namesOf = (observations: Array<{ name: string }>) => observations.map((o) => o.name).sort();

  it('collects NS, MX, CNAME, SPF, DMARC and SRV names inside the domain and drops the rest', async () => {
    const seenAt = new Date('2024-05-01T00:00:00Z');
    const observations = await collectDnsSubdomains('example.test', {
      dnsServers: [dns.server],
      queryTimeoutMs: 1000,
      knownNames: ['*.Shop.example.test.', 'legacy.example.test', 'other.test'],
      now: () => seenAt,
    });

    expect(namesOf(observations)).toEqual([
      'cal.example.test',
      'deep.example.test',
      'edge.example.test',
      'forensics.example.test',
      'mail.example.test',
      'mx-backup.example.test',
      'ns1.example.test',
      'reports.example.test',
      'sip.example.test',
      'smtp-out.example.test',
      'spf2.example.test',
      'spf3.example.test',
      'storefront.example.test',
    ]);
    expect(observations.every((o) => o.source === 'dns' && o.seenAt === seenAt)).toBe(true);
  });

  it('follows SPF includes only inside the domain and reads each policy once', async () => {
    const before = dns.questions.length;
    await collectDnsSubdomains('example.test', { dnsServers: [dns.server], queryTimeoutMs: 1000 });
    const asked = dns.questions.slice(before).map((q) => q.name);

    expect(asked).not.toContain('_spf.outside.test');
    expect(asked.filter((name) => name === '_spf.example.test')).toHaveLength(1);
  });

  it('stops following an SPF chain at the lookup budget', async () => {
    const observations = await collectDnsSubdomains('example.test', {
      dnsServers: [dns.server],
      queryTimeoutMs: 1000,
      spfMaxLookups: 2,
    });

    expect(namesOf(observations)).toContain('spf2.example.test');
    expect(namesOf(observations)).not.toContain('mx-backup.example.test');
  });

  it('returns what it has at the deadline even when questions never get an answer', async () => {
    const observations = await collectDnsSubdomains('slow.test', {
      dnsServers: [dns.server],
      queryTimeoutMs: 30_000,
      deadlineMs: 300,
    });

    // The include target is named by the answered SPF record; its own record never arrives.
    expect(namesOf(observations)).toEqual(['never.slow.test', 'ns1.slow.test']);
  }, 10_000);

  it('yields nothing, without throwing, when the DNS server is unreachable', async () => {
    const observations = await collectDnsSubdomains('example.test', {
      dnsServers: ['127.0.0.1:9'],
      queryTimeoutMs: 200,
      tries: 1,
    });

    expect(observations).toEqual([]);
  });
});
